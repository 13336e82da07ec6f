// optim — the optimiser step over the LoRA adapter's tensors: the global gradient norm and a fused AdamW.
//
// Entry grad_norm_partial (one dispatch per tensor t, n elements, W = min(P, ⌈n / WG⌉) workgroups):
//   norm[HEADER + slot + w] = Σ_{i ≡ w·WG + li (mod W·WG)} grad[i]²        for the W workgroups w < W
//   norm[HEADER + slot + w] = 0                                           for W ≤ w < P (written by workgroup 0)
// Entry grad_norm_final (one dispatch, after every tensor's partials):
//   norm[0] = Σ_j norm[HEADER + j] over all count = tensors · P partials = ‖g‖²;  norm[1] = sqrt(norm[0]) = ‖g‖
// Entry adamw (one dispatch per tensor), PyTorch's torch.optim.AdamW (amsgrad off, maximize off) after
// torch.nn.utils.clip_grad_norm_ (src/model/reference/optim.ts is the float64 reference):
//   clip = use_clip ? min(1, max_norm / (sqrt(norm[0]) + 1e-6)) : 1
//   g = clip · grad[i]
//   p = p · (1 − lr·wd)                                  (decoupled weight decay, `decay` = 1 − lr·wd)
//   m = β1·m + (1 − β1)·g;   v = β2·v + (1 − β2)·g²
//   p = p − step_size · m / (sqrt(v) / sqrt_bc2 + eps)   (step_size = lr / (1 − β1^step), sqrt_bc2 = sqrt(1 − β2^step))
//   grad[i] = 0                                          (ready for the next step's accumulation)
//
// Norm buffer layout (f32): [0] ‖g‖², [1] ‖g‖, [2..HEADER) zero/reserved, then P partials per tensor; its size is
// OptimizerOp.normBufferBytes(tensors). Every slot is written by exactly one invocation in a fixed order, so the
// norm is the same bit for bit on every run (no atomics).
//
// Bindings (group 0), one struct OptimParams from OPTIM_PARAMS in optim.ts for all three entry points { n, slot,
// count, use_clip, max_norm, decay, beta1, beta2, one_minus_beta1, one_minus_beta2, step_size, sqrt_bc2, eps }
// (each reads its own fields; the others are zero):
//   grad_norm_partial: 0 params (n, slot); 1 grad read f32 (n); 2 norm rw
//   grad_norm_final:   0 params (count); 2 norm rw
//   adamw:             0 params (n, use_clip … eps); 2 norm rw (only read); 3 param rw f32 (n); 4 grad_rw rw f32 (n);
//                      5 exp_avg rw f32 (n); 6 exp_avg_sq rw f32 (n)   (no two of 3–6 may alias)
//
// Workgroups: partial W ≤ P = 64 workgroups of WG = 256 per tensor, grid-strided over the tensor, tree reduction in
// workgroup memory (W shrinks with the tensor: a LoRA tensor of a small model has a few hundred elements, and P
// workgroups of barriers with nothing to sum cost SwiftShader ~14 ms a tensor, bench:train's per-kernel table); final: one workgroup of 256 strided over the partials, tree reduction; adamw: 256 per
// workgroup, one element each, grid_index over ⌈n / 256⌉.
// Numerics: f32 throughout; the bias corrections and 1 − β are formed in float64 on the CPU and passed rounded to
// f32 (1 − β2 in f32 arithmetic would lose digits for β2 = 0.999).

const WG: u32 = 256u;
const P: u32 = 64u;
const HEADER: u32 = 4u;

@group(0) @binding(1) var<storage, read> grad: array<f32>;
@group(0) @binding(2) var<storage, read_write> norm: array<f32>;
@group(0) @binding(3) var<storage, read_write> param: array<f32>;
@group(0) @binding(4) var<storage, read_write> grad_rw: array<f32>;
@group(0) @binding(5) var<storage, read_write> exp_avg: array<f32>;
@group(0) @binding(6) var<storage, read_write> exp_avg_sq: array<f32>;

@group(0) @binding(0) var<uniform> params: OptimParams;

// Scratch of workgroup_sum (wgsl/common.ts, composed in front by optim.ts).
var<workgroup> partial: array<f32, WG>;

@compute @workgroup_size(WG)
fn grad_norm_partial(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                     @builtin(local_invocation_index) li: u32) {
  var s = 0.0;
  for (var i = wid.x * WG + li; i < params.n; i = i + nwg.x * WG) {
    let g = grad[i];
    s = s + g * g;
  }
  let total = workgroup_sum(li, s);
  if (li == 0u) {
    norm[HEADER + params.slot + wid.x] = total;
  }
  // The slots of the workgroups not dispatched hold zero (grad_norm_final sums all P).
  if (wid.x == 0u && li >= nwg.x && li < P) {
    norm[HEADER + params.slot + li] = 0.0;
  }
}

@compute @workgroup_size(WG)
fn grad_norm_final(@builtin(local_invocation_index) li: u32) {
  var s = 0.0;
  for (var j = li; j < params.count; j = j + WG) {
    s = s + norm[HEADER + j];
  }
  let total = workgroup_sum(li, s);
  if (li == 0u) {
    norm[0] = total;
    norm[1] = sqrt(total);
    norm[2] = 0.0;
    norm[3] = 0.0;
  }
}

@compute @workgroup_size(WG)
fn adamw(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) li: u32) {
  let i = grid_index(wid, nwg) * WG + li;
  if (i >= params.n) {
    return;
  }
  var clip = 1.0;
  if (params.use_clip != 0u) {
    clip = min(1.0, params.max_norm / (sqrt(norm[0]) + 1.0e-6));
  }
  let g = grad_rw[i] * clip;
  let m = params.beta1 * exp_avg[i] + params.one_minus_beta1 * g;
  let v = params.beta2 * exp_avg_sq[i] + params.one_minus_beta2 * g * g;
  let denom = sqrt(v) / params.sqrt_bc2 + params.eps;
  param[i] = param[i] * params.decay - params.step_size * m / denom;
  exp_avg[i] = m;
  exp_avg_sq[i] = v;
  grad_rw[i] = 0.0;
}
