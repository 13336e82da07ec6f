// rope — rotary position embedding, rotate_half style as Hugging Face Qwen2/Qwen3 apply it, IN PLACE:
//
//   for i < D/2, a = positions[t] · theta^(−2i/D):
//   x[t, h, i]       ← x[t, h, i] · cos a − s · x[t, h, i + D/2] · sin a
//   x[t, h, i + D/2] ← x[t, h, i + D/2] · cos a + s · x[t, h, i] · sin a
//
// with s = +1 (rope_forward) or s = −1 (rope_backward: the inverse rotation, which is the gradient of the forward
// since a rotation's transpose is its inverse; dout in, dx out, in place).
// cos a and sin a come from a table (P, D/2) of vec2(cos, sin) computed on the CPU in float64 (rope-table.ts), so
// large positions lose nothing to f32 angle arithmetic or to WGSL's loose sin/cos accuracy outside [−π, π].
//
// Bindings (group 0), struct RopeParams from ROPE_PARAMS in rope.ts:
//   0 params     uniform  RopeParams { T, NH, D, P }
//   1 x          rw       f32 (T, NH, D)  (q with NH = H, or k with NH = KVH)
//   2 positions  read     u32 (T), each < P
//   3 table      read     vec2<f32> (P, D/2)
//
// Workgroup: 64 invocations, one per (t, h, i), grid_index over ⌈T·NH·D/2 / 64⌉ workgroups.

@group(0) @binding(0) var<uniform> params: RopeParams;
@group(0) @binding(1) var<storage, read_write> x: array<f32>;
@group(0) @binding(2) var<storage, read> positions: array<u32>;
@group(0) @binding(3) var<storage, read> table: array<vec2<f32>>;

fn rotate(idx: u32, s: f32) {
  let half = params.D / 2u;
  if (idx >= params.T * params.NH * half) {
    return;
  }
  let i = idx % half;
  let th = idx / half; // t · NH + h
  let t = th / params.NH;
  let cs = table[positions[t] * half + i];
  let o = th * params.D;
  let x1 = x[o + i];
  let x2 = x[o + i + half];
  x[o + i] = x1 * cs.x - s * x2 * cs.y;
  x[o + i + half] = x2 * cs.x + s * x1 * cs.y;
}

@compute @workgroup_size(64)
fn rope_forward(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) li: u32) {
  rotate(grid_index(wid, nwg) * 64u + li, 1.0);
}

@compute @workgroup_size(64)
fn rope_backward(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) li: u32) {
  rotate(grid_index(wid, nwg) * 64u + li, -1.0);
}
