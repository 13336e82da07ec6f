/**
 * A small builder for one ONNX graph: `op(...)` appends a node and returns its (generated) output name, so an
 * exporter reads like the forward it encodes — `const y = g.op('MatMul', [x, w])`. Initializers (weights, constant
 * shapes and indices) are added by name; the builder only keeps lists, proto.ts does the encoding.
 */
import { DataType, encodeModel, type AttributeValue, type Dim, type NodeSpec, type TensorSpec, type ValueInfoSpec } from './proto.ts';

export class GraphBuilder {
  readonly nodes: NodeSpec[] = [];
  readonly initializers: TensorSpec[] = [];
  readonly inputs: ValueInfoSpec[] = [];
  readonly outputs: ValueInfoSpec[] = [];
  private counter = 0;
  private constants = new Map<string, string>();

  /** Appends a node with one output; returns the output's name (`out` when given, else the node's `<opType>_<n>`). */
  op(opType: string, inputs: readonly string[], attributes?: Record<string, AttributeValue>, out?: string): string {
    const name = `${opType}_${this.counter++}`;
    const output = out ?? name;
    this.nodes.push({ opType, inputs, outputs: [output], name, attributes });
    return output;
  }

  input(name: string, dataType: ValueInfoSpec['dataType'], shape: readonly Dim[]): string {
    this.inputs.push({ name, dataType, shape });
    return name;
  }

  output(name: string, dataType: ValueInfoSpec['dataType'], shape: readonly Dim[]): void {
    this.outputs.push({ name, dataType, shape });
  }

  /** An f32 initializer (a weight), stored little-endian. */
  floats(name: string, dims: readonly number[], data: Float32Array): string {
    const n = dims.reduce((a, b) => a * b, 1);
    if (data.length !== n) throw new RangeError(`ONNX initializer ${name}: ${data.length} values for shape [${dims.join(', ')}]`);
    const copy = new Float32Array(data); // own buffer, little-endian on every platform JS runs on
    this.initializers.push({ name, dims, dataType: DataType.FLOAT, raw: new Uint8Array(copy.buffer) });
    return name;
  }

  /** An int64 constant (a shape, axes, indices), shared between uses with the same value. */
  ints(values: readonly number[], scalar = false): string {
    const key = `${scalar ? 's' : 'v'}:${values.join(',')}`;
    const known = this.constants.get(key);
    if (known !== undefined) return known;
    const name = `const_i64_${this.constants.size}`;
    const data = BigInt64Array.from(values.map((v) => BigInt(v)));
    this.initializers.push({ name, dims: scalar ? [] : [values.length], dataType: DataType.INT64, raw: new Uint8Array(data.buffer) });
    this.constants.set(key, name);
    return name;
  }

  /** An f32 scalar constant, shared between uses with the same value. */
  scalar(value: number): string {
    const key = `f:${value}`;
    const known = this.constants.get(key);
    if (known !== undefined) return known;
    const name = `const_f32_${this.constants.size}`;
    this.initializers.push({ name, dims: [], dataType: DataType.FLOAT, raw: new Uint8Array(Float32Array.of(value).buffer) });
    this.constants.set(key, name);
    return name;
  }

  encode(graphName: string, opset: number, producer: string, docString?: string): Uint8Array {
    return encodeModel({ graphName, nodes: this.nodes, initializers: this.initializers, inputs: this.inputs, outputs: this.outputs, opset, producer, docString });
  }
}
