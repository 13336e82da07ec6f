// kvcache — writes the keys and values of new tokens into the KV cache of one layer:
//
//   kcache[slots[t], positions[t], kvh, d] = k[t, kvh, d]
//   vcache[slots[t], positions[t], kvh, d] = v[t, kvh, d]           for t < T, kvh < KVH, d < D
//
// The cache holds B sequence slots of S positions each, (B, S, KVH, D), one pair of buffers per layer, stored as
// `KvPair`s of two consecutive values (kv-format.ts: packed f16 halves, or vec2<f32>). New tokens of several
// sequences are packed in one (T, KVH, D) batch, each with its slot and absolute position (prefill: T tokens of one
// or more sequences; decode: one token per sequence). Keys are stored after RoPE.
//
// Bindings (group 0), struct KvWriteParams from KV_WRITE_PARAMS in kvcache.ts:
//   0 params     uniform  KvWriteParams { T, KVH, D, S }
//   1 k          read     f32 (T, KVH, D)
//   2 v          read     f32 (T, KVH, D)
//   3 slots      read     u32 (T), each < B
//   4 positions  read     u32 (T), each < S
//   5 kcache     rw       KvPair (B, S, KVH, D/2)
//   6 vcache     rw       KvPair (B, S, KVH, D/2)
//
// Workgroup: 64 invocations, one per pair (t, kvh, d/2) of values, grid_index over ⌈T·KVH·D/2 / 64⌉ workgroups
// (D is even, so a pair never straddles two heads or rows).
// Numerics: f16 storage rounds each value (pack2x16float; out-of-range values are clamped to ±65504 first).
// Backward: none; the training backward reads the cache the forward wrote (attention-backward.wgsl), and its dk, dv
// pass straight through the storage rounding to k and v.

@group(0) @binding(0) var<uniform> params: KvWriteParams;
@group(0) @binding(1) var<storage, read> k: array<f32>;
@group(0) @binding(2) var<storage, read> v: array<f32>;
@group(0) @binding(3) var<storage, read> slots: array<u32>;
@group(0) @binding(4) var<storage, read> positions: array<u32>;
@group(0) @binding(5) var<storage, read_write> kcache: array<KvPair>;
@group(0) @binding(6) var<storage, read_write> vcache: array<KvPair>;

@compute @workgroup_size(64)
fn kv_write(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) li: u32) {
  let row2 = params.KVH * params.D / 2u; // pairs per cache position
  let idx = grid_index(wid, nwg) * 64u + li; // pair index into k and v
  if (idx >= params.T * row2) {
    return;
  }
  let t = idx / row2;
  let e = idx % row2;
  let dst = (slots[t] * params.S + positions[t]) * row2 + e;
  kcache[dst] = kv_store(vec2<f32>(k[2u * idx], k[2u * idx + 1u]));
  vcache[dst] = kv_store(vec2<f32>(v[2u * idx], v[2u * idx + 1u]));
}
