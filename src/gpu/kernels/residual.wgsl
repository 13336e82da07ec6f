// residual — the residual connection, elementwise:
//
//   add:          out[i] = a[i] + b[i]        for i < n
//   add_inplace:  acc[i] = acc[i] + b[i]
//
// Bindings (group 0), struct ResidualParams from RESIDUAL_PARAMS in residual.ts:
//   0 params  uniform  ResidualParams { n }
//   1 a       read     f32 (n)            (add only)
//   2 b       read     f32 (n)
//   3 out     rw       f32 (n)            (add only; must not alias a or b)
//   4 acc     rw       f32 (n)            (add_inplace only)
//
// Workgroup: 256 invocations, one per element, grid_index over ⌈n / 256⌉ workgroups.
// Backward: the gradient passes to both inputs unchanged (da = db = dout), so it needs no kernel of its own; the
// backward pass accumulates with add_inplace.

@group(0) @binding(0) var<uniform> params: ResidualParams;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<storage, read_write> acc: array<f32>;

@compute @workgroup_size(256)
fn add(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
       @builtin(local_invocation_index) li: u32) {
  let i = grid_index(wid, nwg) * 256u + li;
  if (i >= params.n) {
    return;
  }
  out[i] = a[i] + b[i];
}

@compute @workgroup_size(256)
fn add_inplace(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) li: u32) {
  let i = grid_index(wid, nwg) * 256u + li;
  if (i >= params.n) {
    return;
  }
  acc[i] = acc[i] + b[i];
}
