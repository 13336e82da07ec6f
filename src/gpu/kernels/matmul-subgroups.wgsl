// matmul_v3 — the decode matmul (few rows) with K split over a workgroup and a subgroup reduction. Composed after
// matmul.wgsl (same bindings, params, w_pair and epilogue) behind `enable subgroups;`, only on devices that have the
// `subgroups` feature (matmul.ts). It computes what matmul_v2 computes:
//
//   out[m, n0 + n] = Σ_k x[m, k] · W[n, k]  (+ bias)  (+ LoRA)      for m0 <= m < m0 + 8, one column n per workgroup
//
// Why: v2 gives each output column one invocation that walks all of K, so a 1,024-row projection is 1,024 threads —
// far too few to keep a real GPU's memory system busy at B = 1. Here 64 invocations share a column: invocation i
// takes pairs p = i, i + 64, … (consecutive invocations read consecutive words of the row, coalesced), accumulates
// up to 8 rows, then each subgroup sums its lanes with subgroupAdd and the workgroup sums the subgroups' totals.
//
// Workgroup: 64 invocations, one column n and up to GM = 8 rows; grid_index over N · ⌈M/8⌉ workgroups (column fastest).
// Workgroup memory: partial[GM][64], one slot per invocation (0 except in each subgroup's lane 0), summed in slot order.
//
// Numerics: a different summation order from v0–v2 (strided partial sums, then the subgroup's and the workgroup's
// sums), so v3 agrees with them to rounding, not in bits; it is checked against the float64 reference. A row's result
// does not depend on the other rows of the dispatch (each row's sums are the same code path whatever M is), so
// batched decode still equals single-sequence decode bit for bit. Whole workgroups return together (the bound check
// uses workgroup-uniform values), so subgroupAdd and the barrier are reached in uniform control flow.

var<workgroup> partial: array<f32, 512>; // [GM][64]

@compute @workgroup_size(64)
fn matmul_v3(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) li: u32, @builtin(subgroup_invocation_id) lane: u32) {
  let idx = grid_index(wid, nwg);
  if (idx >= params.N * ((params.M + GM - 1u) / GM)) {
    return;
  }
  let n = idx % params.N;
  let m0 = (idx / params.N) * GM;
  let rows = min(GM, params.M - m0);
  let half_k = params.K / 2u;
  var acc: array<f32, GM>;
  for (var p = li; p < half_k; p = p + 64u) {
    let wv = w_pair(n, p);
    for (var i = 0u; i < rows; i = i + 1u) {
      let xo = (m0 + i) * params.ldx + 2u * p;
      acc[i] = fma(x[xo], wv.x, acc[i]);
      acc[i] = fma(x[xo + 1u], wv.y, acc[i]);
    }
  }
  for (var i = 0u; i < rows; i = i + 1u) {
    let s = subgroupAdd(acc[i]);
    partial[i * 64u + li] = select(0.0, s, lane == 0u);
  }
  workgroupBarrier();
  if (li < rows) {
    var total = 0.0;
    for (var j = 0u; j < 64u; j = j + 1u) {
      total = total + partial[li * 64u + j];
    }
    out[(m0 + li) * params.ldo + params.n0 + n] = epilogue(m0 + li, n, total);
  }
}
