/**
 * WebGPU flag constants by their spec values. TypeScript's lib.dom (6.0) types the flag parameters as numbers but
 * declares no `GPUBufferUsage` / `GPUMapMode` / `GPUShaderStage` globals, and Node (where memory plans are tested)
 * has none either; these are the numbers the WebGPU spec fixes. This file can go when lib.dom declares the globals.
 */

export const BufferUsage = {
  MAP_READ: 0x0001,
  MAP_WRITE: 0x0002,
  COPY_SRC: 0x0004,
  COPY_DST: 0x0008,
  INDEX: 0x0010,
  VERTEX: 0x0020,
  UNIFORM: 0x0040,
  STORAGE: 0x0080,
  INDIRECT: 0x0100,
  QUERY_RESOLVE: 0x0200,
} as const;

export const MapMode = { READ: 0x0001, WRITE: 0x0002 } as const;

export const ShaderStage = { VERTEX: 0x1, FRAGMENT: 0x2, COMPUTE: 0x4 } as const;
