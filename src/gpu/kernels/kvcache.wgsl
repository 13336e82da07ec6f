// kvcache — writes the keys and values of new tokens into the KV cache of one layer:
//
//   kcache[slots[t], positions[t], kvh, d] = k[t, kvh, d]
//   vcache[slots[t], positions[t], kvh, d] = v[t, kvh, d]           for t < T, kvh < KVH, d < D
//
// The cache holds B sequence slots of S positions each, (B, S, KVH, D) f32, one pair of buffers per layer. New
// tokens of several sequences are packed in one (T, KVH, D) batch, each with its slot and absolute position
// (prefill: T tokens of one or more sequences; decode: one token per sequence). Keys are stored after RoPE.
//
// Bindings (group 0), struct KvWriteParams from KV_WRITE_PARAMS in kvcache.ts:
//   0 params     uniform  KvWriteParams { T, KVH, D, S }
//   1 k          read     f32 (T, KVH, D)
//   2 v          read     f32 (T, KVH, D)
//   3 slots      read     u32 (T), each < B
//   4 positions  read     u32 (T), each < S
//   5 kcache     rw       f32 (B, S, KVH, D)
//   6 vcache     rw       f32 (B, S, KVH, D)
//
// Workgroup: 64 invocations, one per (t, kvh, d), grid_index over ⌈T·KVH·D / 64⌉ workgroups.
// Backward: the training pass recomputes k and v per layer and reads them directly (no cache), so none.

@group(0) @binding(0) var<uniform> params: KvWriteParams;
@group(0) @binding(1) var<storage, read> k: array<f32>;
@group(0) @binding(2) var<storage, read> v: array<f32>;
@group(0) @binding(3) var<storage, read> slots: array<u32>;
@group(0) @binding(4) var<storage, read> positions: array<u32>;
@group(0) @binding(5) var<storage, read_write> kcache: array<f32>;
@group(0) @binding(6) var<storage, read_write> vcache: array<f32>;

@compute @workgroup_size(64)
fn kv_write(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) li: u32) {
  let row = params.KVH * params.D;
  let idx = grid_index(wid, nwg) * 64u + li;
  if (idx >= params.T * row) {
    return;
  }
  let t = idx / row;
  let e = idx % row;
  let dst = (slots[t] * params.S + positions[t]) * row + e;
  kcache[dst] = k[idx];
  vcache[dst] = v[idx];
}
