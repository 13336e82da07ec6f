/**
 * The few ONNX protobuf messages an exported model needs (ModelProto, GraphProto, NodeProto, AttributeProto,
 * TensorProto, ValueInfoProto), encoded by hand: protobuf's wire format is small (varints, little-endian fixed32,
 * length-delimited bytes) and ONNX's schema is stable, so a 150-line writer replaces a protobuf runtime and its
 * generated schema. Field numbers are those of onnx/onnx.proto (IR version 8, the one opset 17 belongs to).
 *
 * The schema is proto2, where repeated scalars are not packed by default; this writer emits them unpacked (one tag
 * per element), which every parser accepts. Negative int64 values (axes = −1) are 10-byte two's-complement varints.
 */

/** TensorProto.DataType values used here. */
export const DataType = { FLOAT: 1, UINT8: 2, INT32: 6, INT64: 7, BOOL: 9, FLOAT16: 10 } as const;
export type DataTypeValue = (typeof DataType)[keyof typeof DataType];

/** AttributeProto.AttributeType values used here. */
const AttributeType = { FLOAT: 1, INT: 2, INTS: 7 } as const;

class Writer {
  private chunks: Uint8Array[] = [];
  private size = 0;

  private push(bytes: Uint8Array): void {
    this.chunks.push(bytes);
    this.size += bytes.length;
  }

  private varint(value: bigint): void {
    let v = BigInt.asUintN(64, value);
    const out: number[] = [];
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v !== 0n) byte |= 0x80;
      out.push(byte);
    } while (v !== 0n);
    this.push(Uint8Array.from(out));
  }

  private tag(field: number, wire: 0 | 2 | 5): void {
    this.varint(BigInt((field << 3) | wire));
  }

  int(field: number, value: number | bigint): this {
    this.tag(field, 0);
    this.varint(BigInt(value));
    return this;
  }

  float(field: number, value: number): this {
    this.tag(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.push(b);
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.tag(field, 2);
    this.varint(BigInt(value.length));
    this.push(value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.size);
    let o = 0;
    for (const c of this.chunks) {
      out.set(c, o);
      o += c.length;
    }
    return out;
  }
}

export type AttributeValue = { float: number } | { int: number } | { ints: readonly number[] };

export interface NodeSpec {
  opType: string;
  inputs: readonly string[];
  outputs: readonly string[];
  name: string;
  attributes?: Readonly<Record<string, AttributeValue>>;
  /** Operator set domain ('' = ai.onnx); 'com.microsoft' for onnxruntime's contrib ops. */
  domain?: string;
}

export interface TensorSpec {
  name: string;
  dims: readonly number[];
  dataType: DataTypeValue;
  /** Little-endian element bytes (raw_data). */
  raw: Uint8Array;
}

/** A dimension: a fixed size or a symbolic name (batch_size, past_sequence_length, ...). */
export type Dim = number | string;

export interface ValueInfoSpec {
  name: string;
  dataType: DataTypeValue;
  shape: readonly Dim[];
}

export interface ModelSpec {
  graphName: string;
  nodes: readonly NodeSpec[];
  initializers: readonly TensorSpec[];
  inputs: readonly ValueInfoSpec[];
  outputs: readonly ValueInfoSpec[];
  opset: number;
  /** Further operator sets the nodes use beside ai.onnx, e.g. { domain: 'com.microsoft', version: 1 }. */
  extraOpsets?: ReadonlyArray<{ domain: string; version: number }>;
  producer: string;
  docString?: string;
}

/** ONNX IR version 8 (onnx 1.10–1.12: opsets up to 17). */
export const IR_VERSION = 8;

function attribute(name: string, value: AttributeValue): Uint8Array {
  const w = new Writer().string(1, name);
  if ('float' in value) w.float(2, value.float).int(20, AttributeType.FLOAT);
  else if ('int' in value) w.int(3, value.int).int(20, AttributeType.INT);
  else {
    for (const v of value.ints) w.int(8, v);
    w.int(20, AttributeType.INTS);
  }
  return w.finish();
}

function node(n: NodeSpec): Uint8Array {
  const w = new Writer();
  for (const i of n.inputs) w.string(1, i);
  for (const o of n.outputs) w.string(2, o);
  w.string(3, n.name).string(4, n.opType);
  for (const [k, v] of Object.entries(n.attributes ?? {})) w.bytes(5, attribute(k, v));
  if (n.domain !== undefined && n.domain !== '') w.string(7, n.domain);
  return w.finish();
}

export function tensorProto(t: TensorSpec): Uint8Array {
  const w = new Writer();
  for (const d of t.dims) w.int(1, d);
  return w.int(2, t.dataType).string(8, t.name).bytes(9, t.raw).finish();
}

function valueInfo(v: ValueInfoSpec): Uint8Array {
  const shape = new Writer();
  for (const d of v.shape) shape.bytes(1, typeof d === 'number' ? new Writer().int(1, d).finish() : new Writer().string(2, d).finish());
  const tensorType = new Writer().int(1, v.dataType).bytes(2, shape.finish()).finish();
  const type = new Writer().bytes(1, tensorType).finish();
  return new Writer().string(1, v.name).bytes(2, type).finish();
}

/** The serialized ModelProto (what an `.onnx` file holds). */
export function encodeModel(m: ModelSpec): Uint8Array {
  const g = new Writer();
  for (const n of m.nodes) g.bytes(1, node(n));
  g.string(2, m.graphName);
  for (const t of m.initializers) g.bytes(5, tensorProto(t));
  for (const i of m.inputs) g.bytes(11, valueInfo(i));
  for (const o of m.outputs) g.bytes(12, valueInfo(o));
  const model = new Writer().int(1, IR_VERSION).string(2, m.producer);
  if (m.docString !== undefined) model.string(6, m.docString);
  model.bytes(7, g.finish());
  model.bytes(8, new Writer().string(1, '').int(2, m.opset).finish());
  for (const o of m.extraOpsets ?? []) model.bytes(8, new Writer().string(1, o.domain).int(2, o.version).finish());
  return model.finish();
}
