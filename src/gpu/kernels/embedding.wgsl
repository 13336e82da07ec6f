// embedding — token embedding gather from a packed table (f16, q8 or q4), one row chunk at a time:
//
//   out[t, c] = table[ids[t], c]      for t < T with row0 <= ids[t] < row0 + rows, c < C
//
// The table (V, C) is stored in whole-row chunks (split.ts) and read only through table_pair(row, p) -> (E[row, 2p],
// E[row, 2p+1]), composed in front of this source for the table's format (quant.ts); the op dispatches once per
// chunk and each dispatch writes only the tokens whose id falls in its chunk, so after all chunks every token is
// written exactly once (ids are checked against V on the CPU before upload).
//
// Bindings (group 0), struct EmbeddingParams from EMBEDDING_PARAMS in embedding.ts:
//   0 params  uniform  EmbeddingParams { T, C, row0, rows }
//   1 ids     read     u32 (T)
//   2 table   read     u32 (rows, row words) in the table's format (this chunk)
//   3 out     rw       f32 (T, C)
//
// Workgroup: 64 invocations, one per (t, word p < C/2), grid_index over ⌈T·C/2 / 64⌉ workgroups.
// No backward: the embedding is frozen (LoRA adapts the projections); gradients stop at the gathered rows.

@group(0) @binding(0) var<uniform> params: EmbeddingParams;
@group(0) @binding(1) var<storage, read> ids: array<u32>;
@group(0) @binding(2) var<storage, read> table: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn embedding_gather(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                    @builtin(local_invocation_index) li: u32) {
  let half_c = params.C / 2u;
  let idx = grid_index(wid, nwg) * 64u + li;
  if (idx >= params.T * half_c) {
    return;
  }
  let t = idx / half_c;
  let p = idx % half_c;
  let id = ids[t];
  if (id < params.row0 || id >= params.row0 + params.rows) {
    return;
  }
  let v = table_pair(id - params.row0, p);
  out[t * params.C + 2u * p] = v.x;
  out[t * params.C + 2u * p + 1u] = v.y;
}
