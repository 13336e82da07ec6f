/**
 * Uniform layouts declared once. A kernel's TS module calls `defineUniforms('MatmulParams', { M: 'u32', ... })`;
 * the result both writes the WGSL struct (prepended to the kernel source, so the shader reads `params.M`) and packs
 * values into the bytes that struct expects. Nobody computes offsets by hand on either side.
 *
 * Layout: every field is a 4-byte scalar, in declaration order, so field i sits at byte 4*i (the WGSL uniform
 * layout rules give the same offsets for scalars); the struct is padded to a multiple of 16 bytes.
 */
import { GpuShapeError } from './errors.ts';

export type ScalarType = 'u32' | 'i32' | 'f32';
export type UniformFields = Record<string, ScalarType>;
export type UniformValues<F extends UniformFields> = { [K in keyof F]: number };

export interface UniformLayout<F extends UniformFields> {
  readonly structName: string;
  readonly fields: F;
  /** Bytes of the packed struct (a multiple of 16). */
  readonly byteSize: number;
  /** `struct <structName> { a: u32, b: f32, ... }` */
  readonly wgsl: string;
  /** Byte offset of each field. */
  readonly offsets: { readonly [K in keyof F]: number };
  pack(values: UniformValues<F>): ArrayBuffer;
}

export function defineUniforms<F extends UniformFields>(structName: string, fields: F): UniformLayout<F> {
  const names = Object.keys(fields) as (keyof F & string)[];
  if (names.length === 0) throw new GpuShapeError(`uniforms ${structName}`, 'a uniform struct needs at least one field');
  const byteSize = Math.ceil((names.length * 4) / 16) * 16;
  const offsets = Object.fromEntries(names.map((name, i) => [name, 4 * i])) as { [K in keyof F]: number };
  const wgsl = `struct ${structName} {\n${names.map((name) => `  ${name}: ${fields[name]},`).join('\n')}\n}\n`;
  return {
    structName,
    fields,
    byteSize,
    wgsl,
    offsets,
    pack(values) {
      const bytes = new ArrayBuffer(byteSize);
      const view = new DataView(bytes);
      for (const name of names) {
        const value = values[name];
        const type = fields[name];
        const where = `uniforms ${structName}.${name}`;
        if (typeof value !== 'number' || (Number.isNaN(value) && type !== 'f32')) throw new GpuShapeError(where, `expected a number, got ${String(value)}`);
        switch (type) {
          case 'u32':
            if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new GpuShapeError(where, `${value} is not a u32`);
            view.setUint32(offsets[name], value, true);
            break;
          case 'i32':
            if (!Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff) throw new GpuShapeError(where, `${value} is not an i32`);
            view.setInt32(offsets[name], value, true);
            break;
          case 'f32':
            view.setFloat32(offsets[name], value, true);
            break;
          default:
            throw new GpuShapeError(where, `unknown scalar type ${type satisfies never}`);
        }
      }
      return bytes;
    },
  };
}
