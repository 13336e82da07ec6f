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
// Workgroup: 64 invocations per row (grid_index over M rows); each sums x² over a strided slice of the row, a tree
// reduction in workgroup memory gives the row's sum, then each writes its slice.
// Numerics: f32 sum of squares (pairwise across invocations), 1 / sqrt (not inverseSqrt, for accuracy).
// Backward (dx, dweight from dout, recomputing 1/rms) will join this file.

const WG: u32 = 64u;

@group(0) @binding(0) var<uniform> params: RmsnormParams;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> weight: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

var<workgroup> partial: array<f32, WG>;

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
  partial[li] = s;
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
    if (li < stride) {
      partial[li] = partial[li] + partial[li + stride];
    }
    workgroupBarrier();
  }
  let inv = 1.0 / sqrt(partial[0] / f32(params.C) + params.eps);
  for (var c = li; c < params.C; c = c + WG) {
    out[o + c] = x[o + c] * inv * weight[c];
  }
}
