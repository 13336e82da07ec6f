// swiglu_backward — gradients of the SwiGLU gate act = silu(gate) · up (swiglu.wgsl), elementwise:
//
//   dgate[i] = dact[i] · up[i] · σ(g) · (1 + g · (1 − σ(g))),   g = gate[i]     (silu'(g))
//   dup[i]   = dact[i] · silu(g)                                                 for i < n = M · I
//
// (swigluBackwardRef in src/model/reference/ops.ts.) Both gradients are WRITTEN, not accumulated: gate and up each
// feed only this op, and their projections' backward reads them next.
//
// Bindings (group 0), struct SwigluBackwardParams from SWIGLU_BACKWARD_PARAMS in swiglu-backward.ts:
//   0 params  uniform  SwigluBackwardParams { n }
//   1 dact    read     f32 (M, I)
//   2 gate    read     f32 (M, I)   the forward's inputs
//   3 up      read     f32 (M, I)
//   4 dgate   rw       f32 (M, I)
//   5 dup     rw       f32 (M, I)   (neither may alias another binding)
//
// Workgroup: 256 invocations, one per element, grid_index over ⌈n / 256⌉ workgroups.
// Numerics: σ from exp(−|g|) only (wgsl/common.ts), so no overflow for any finite g; silu'(g) → 0 for g ≪ 0 and → 1
// for g ≫ 0 without cancellation trouble (σ(g)·(1 − σ(g)) is formed from the same σ).

@group(0) @binding(0) var<uniform> params: SwigluBackwardParams;
@group(0) @binding(1) var<storage, read> dact: array<f32>;
@group(0) @binding(2) var<storage, read> gate: array<f32>;
@group(0) @binding(3) var<storage, read> up: array<f32>;
@group(0) @binding(4) var<storage, read_write> dgate: array<f32>;
@group(0) @binding(5) var<storage, read_write> dup: array<f32>;

@compute @workgroup_size(256)
fn swiglu_backward(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) li: u32) {
  let i = grid_index(wid, nwg) * 256u + li;
  if (i >= params.n) {
    return;
  }
  let g = gate[i];
  let s = sigmoid(g);
  let d = dact[i];
  dgate[i] = d * up[i] * s * (1.0 + g * (1.0 - s));
  dup[i] = d * g * s;
}
