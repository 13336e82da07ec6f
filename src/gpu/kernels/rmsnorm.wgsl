// rmsnorm — Qwen's RMSNorm, per row:
//
//   out[m, c] = x[m, c] / sqrt(mean_c(x[m, :]²) + eps) · weight[c]        for m < M, c < C
//
// Used for the layer norms (rows = tokens, C = hidden size) and for Qwen3's q/k norms (rows = tokens × heads,
// C = head size D), with the same weight (C) for every row.
//
// Bindings (group 0), struct RmsnormParams from RMSNORM_PARAMS in rmsnorm.ts:
//   0 params  uniform  RmsnormParams { M, C, eps }
//   1 x       read     f32 (M, C)
//   2 weight  read     f32 (C)
//   3 out     rw       f32 (M, C)   (must not alias x)
//
// Entry points (variants; rmsnorm.ts picks one by C, as rmsnorm-backward.ts does):
//   rmsnorm      64 invocations per row (grid_index over M rows); each sums x² over a strided slice of the row, a
//                tree reduction in workgroup memory gives the row's sum, then each writes its slice. For wide rows
//                (C > 64).
//   rmsnorm_row  one invocation per row, 64 rows per workgroup (grid_index over ⌈M/64⌉), plain loops, no workgroup
//                memory or barriers. For short rows (C ≤ 64: the per-head q/k norms of a small model, a test model's
//                layer norms), where the tree variant leaves most invocations idle and pays seven barriers per row
//                (10–20% of a training step on SwiftShader at T = 320). It replays the tree variant's summation
//                order in private memory, so the two give the same bits (sampled log-probs, decoded with the fused
//                layer kernels' tree sums, must equal the trainer's scores: train-model-api checks it).
// Numerics: f32 sum of squares (64 strided partial sums, then pairwise), 1 / sqrt (not inverseSqrt, for accuracy).
// Backward: rmsnorm-backward.wgsl.

const WG: u32 = 64u;

@group(0) @binding(0) var<uniform> params: RmsnormParams;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> weight: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

var<workgroup> partial: array<f32, WG>;

@compute @workgroup_size(WG)
fn rmsnorm_row(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) li: u32) {
  let row = grid_index(wid, nwg) * WG + li;
  if (row >= params.M) {
    return;
  }
  let o = row * params.C;
  // The workgroup variant's sum in its exact order (64 strided partial sums, then the same pairwise tree), so both
  // variants give the same bits: decode (the fused layer kernels, tree order) and a T-row forward must agree.
  // For C < WG the partials from C on are 0 and the tree's first steps add exact zeros: start at the first power
  // of two ≥ C instead (same bits, a quarter of the work at C = 16).
  var width = WG;
  if (params.C < WG) {
    width = 1u;
    while (width < params.C) {
      width = width * 2u;
    }
  }
  var partials: array<f32, WG>;
  for (var i = 0u; i < width; i = i + 1u) {
    var s = 0.0;
    for (var c = i; c < params.C; c = c + WG) {
      let v = x[o + c];
      s = s + v * v;
    }
    partials[i] = s;
  }
  for (var stride = width / 2u; stride > 0u; stride = stride / 2u) {
    for (var i = 0u; i < stride; i = i + 1u) {
      partials[i] = partials[i] + partials[i + stride];
    }
  }
  let inv = 1.0 / sqrt(partials[0] / f32(params.C) + params.eps);
  for (var c = 0u; c < params.C; c = c + 1u) {
    out[o + c] = x[o + c] * inv * weight[c];
  }
}

@compute @workgroup_size(WG)
fn rmsnorm(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) li: u32) {
  let row = grid_index(wid, nwg);
  if (row >= params.M) {
    return;
  }
  let o = row * params.C;
  var s = 0.0;
  for (var c = li; c < params.C; c = c + WG) {
    let v = x[o + c];
    s = s + v * v;
  }
  let inv = 1.0 / sqrt(workgroup_sum(li, s) / f32(params.C) + params.eps);
  for (var c = li; c < params.C; c = c + WG) {
    out[o + c] = x[o + c] * inv * weight[c];
  }
}
