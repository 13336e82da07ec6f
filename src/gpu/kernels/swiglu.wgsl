// swiglu — the SwiGLU gate of the MLP, elementwise:
//
//   out[i] = silu(gate[i]) · up[i],  silu(g) = g · σ(g)        for i < n = M · I
//
// Bindings (group 0), struct SwigluParams from SWIGLU_PARAMS in swiglu.ts:
//   0 params  uniform  SwigluParams { n }
//   1 gate    read     f32 (M, I)
//   2 up      read     f32 (M, I)
//   3 out     rw       f32 (M, I)
//
// Workgroup: 256 invocations, one per element, grid_index over ⌈n / 256⌉ workgroups.
// Numerics: σ from exp(−|g|) only (wgsl/common.ts), so no overflow for any finite g.
// Backward (dgate = dout·up·σ(g)(1 + g(1 − σ(g))), dup = dout·silu(g)) will join this file.

@group(0) @binding(0) var<uniform> params: SwigluParams;
@group(0) @binding(1) var<storage, read> gate: array<f32>;
@group(0) @binding(2) var<storage, read> up: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn swiglu(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) li: u32) {
  let i = grid_index(wid, nwg) * 256u + li;
  if (i >= params.n) {
    return;
  }
  out[i] = silu(gate[i]) * up[i];
}
