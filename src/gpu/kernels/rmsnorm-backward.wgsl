// rmsnorm_backward — the input gradient of Qwen's RMSNorm (rmsnorm.wgsl), per row, the weight frozen:
//
//   y[m, c]  = x[m, c] · r · w[c],   r = (mean_c(x[m, :]²) + eps)^(−1/2)
//   dx[m, c] (+)= r · w[c] · dy[m, c] − (r³ / C) · x[m, c] · Σ_j dy[m, j] · w[j] · x[m, j]      for m < M, c < C
//
// (rmsnormBackwardRef in src/model/reference/ops.ts; no dweight: the norms' weights are not trained.) Used for the
// layer norms (rows = tokens, C = hidden size) and for Qwen3's q/k norms (rows = tokens × heads, C = head size D).
// r is recomputed from x (nothing is saved by the forward).
//
// Bindings (group 0), struct RmsnormBackwardParams from RMSNORM_BACKWARD_PARAMS in rmsnorm-backward.ts:
//   0 params  uniform  RmsnormBackwardParams { M, C, eps, accumulate }   (accumulate: 1 → dx +=, 0 → dx =)
//   1 dy      read     f32 (M, C)
//   2 x       read     f32 (M, C)   the forward's input
//   3 weight  read     f32 (C)
//   4 dx      rw       f32 (M, C)   (must not alias dy or x: WebGPU forbids a writable binding aliasing another)
//
// Entry points (variants; rmsnorm-backward.ts picks one by C):
//   rmsnorm_backward      64 invocations per row (grid_index over M rows), as the forward: each sums x² and dy·w·x
//                         over a strided slice of the row, one tree reduction in workgroup memory gives both row sums,
//                         then each writes its slice of dx. For wide rows (C > 64).
//   rmsnorm_backward_row  one invocation per row, 64 rows per workgroup (grid_index over ⌈M/64⌉), plain loops, no
//                         workgroup memory or barriers. For short rows (C ≤ 64: the per-head q/k norms of a small
//                         model, a test model's layer norms), where the tree variant leaves most invocations idle and
//                         pays six barriers per row (14 ms per dispatch on SwiftShader at T = 320, C = 64).
// Numerics: f32 sums (pairwise across invocations in the tree variant, sequential in the row variant: the two differ
// in the last bits), 1 / sqrt (not inverseSqrt, for accuracy), r³/C·dot formed once per row.

const WG: u32 = 64u;

@group(0) @binding(0) var<uniform> params: RmsnormBackwardParams;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> weight: array<f32>;
@group(0) @binding(4) var<storage, read_write> dx: array<f32>;

var<workgroup> partial_ss: array<f32, WG>;
var<workgroup> partial_dot: array<f32, WG>;

// dx[o + c] for c < C given the row's r and k = r³/C·dot.
fn store_row_dx(o: u32, c: u32, r: f32, k: f32) {
  let g = r * weight[c] * dy[o + c] - k * x[o + c];
  if (params.accumulate != 0u) {
    dx[o + c] = dx[o + c] + g;
  } else {
    dx[o + c] = g;
  }
}

@compute @workgroup_size(WG)
fn rmsnorm_backward_row(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                        @builtin(local_invocation_index) li: u32) {
  let row = grid_index(wid, nwg) * WG + li;
  if (row >= params.M) {
    return;
  }
  let o = row * params.C;
  var ss = 0.0;
  var dot = 0.0;
  for (var c = 0u; c < params.C; c = c + 1u) {
    let v = x[o + c];
    ss = ss + v * v;
    dot = dot + dy[o + c] * weight[c] * v;
  }
  let r = 1.0 / sqrt(ss / f32(params.C) + params.eps);
  let k = r * r * r / f32(params.C) * dot;
  for (var c = 0u; c < params.C; c = c + 1u) {
    store_row_dx(o, c, r, k);
  }
}

@compute @workgroup_size(WG)
fn rmsnorm_backward(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                    @builtin(local_invocation_index) li: u32) {
  let row = grid_index(wid, nwg);
  if (row >= params.M) {
    return;
  }
  let o = row * params.C;
  var ss = 0.0;
  var dot = 0.0;
  for (var c = li; c < params.C; c = c + WG) {
    let v = x[o + c];
    ss = ss + v * v;
    dot = dot + dy[o + c] * weight[c] * v;
  }
  partial_ss[li] = ss;
  partial_dot[li] = dot;
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
    if (li < stride) {
      partial_ss[li] = partial_ss[li] + partial_ss[li + stride];
      partial_dot[li] = partial_dot[li] + partial_dot[li + stride];
    }
    workgroupBarrier();
  }
  let r = 1.0 / sqrt(partial_ss[0] / f32(params.C) + params.eps);
  let k = r * r * r / f32(params.C) * partial_dot[0];
  for (var c = li; c < params.C; c = c + WG) {
    store_row_dx(o, c, r, k);
  }
}
