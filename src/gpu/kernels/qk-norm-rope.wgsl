// qk-norm-rope — what happens to q, k and v between the projections and the KV-cache write, in ONE dispatch, in place:
//
//   mode 1 (Qwen3): q[t, h] ← rope(rmsnorm(q[t, h]) · aux_q),  k[t, h] ← rope(rmsnorm(k[t, h]) · aux_k)   (per head of D)
//   mode 2 (Qwen2): q[t, h] ← rope(q[t, h] + aux_q[h·D …]),    k[t, h] ← rope(k[t, h] + aux_k[h·D …]),
//                   v[t, h] ← v[t, h] + aux_v[h·D …]                                      (the q/k/v biases)
//   mode 0:         q, k ← rope(q), rope(k)
//
// rmsnorm as rmsnorm.wgsl computes it (64 lanes, strided sum of squares, tree reduction, x · inv · w), rope as
// rope.wgsl (rotate_half, cos/sin from the float64-built table at each token's position), so the result equals
// rmsnorm then rope dispatched apart, bit for bit.
//
// Bindings (group 0), struct QkNormRopeParams from QK_NORM_ROPE_PARAMS in qk-norm-rope.ts:
//   0 params     uniform  QkNormRopeParams { T, H, KVH, D, P, mode, eps }
//   1 q          rw       f32 (T, H, D)
//   2 k          rw       f32 (T, KVH, D)
//   3 v          rw       f32 (T, KVH, D)      (written in mode 2 only)
//   4 positions  read     u32 (T), each < P
//   5 table      read     vec2<f32> (P, D/2)
//   6 aux_q      read     f32 (D) q_norm weight (mode 1) or (H·D) q bias (mode 2); a dummy in mode 0
//   7 aux_k      read     f32 (D) or (KVH·D)
//   8 aux_v      read     f32 (KVH·D) v bias (mode 2); a dummy otherwise
//
// Workgroup: 64 invocations per (token, head); heads per token H + KVH (+ KVH v heads in mode 2), grid_index over
// T · heads workgroups. The head's D values sit in workgroup memory between the norm and the rotation (D ≤ 512).

const WG: u32 = 64u;
const MAX_D: u32 = 512u;

@group(0) @binding(0) var<uniform> params: QkNormRopeParams;
@group(0) @binding(1) var<storage, read_write> q: array<f32>;
@group(0) @binding(2) var<storage, read_write> k: array<f32>;
@group(0) @binding(3) var<storage, read_write> v: array<f32>;
@group(0) @binding(4) var<storage, read> positions: array<u32>;
@group(0) @binding(5) var<storage, read> table: array<vec2<f32>>;
@group(0) @binding(6) var<storage, read> aux_q: array<f32>;
@group(0) @binding(7) var<storage, read> aux_k: array<f32>;
@group(0) @binding(8) var<storage, read> aux_v: array<f32>;

var<workgroup> partial: array<f32, WG>;
var<workgroup> row: array<f32, MAX_D>;

// which: 0 q, 1 k, 2 v. Element i of head hh of token t.
fn load(which: u32, o: u32) -> f32 {
  if (which == 0u) {
    return q[o];
  }
  if (which == 1u) {
    return k[o];
  }
  return v[o];
}

fn store(which: u32, o: u32, value: f32) {
  if (which == 0u) {
    q[o] = value;
  } else if (which == 1u) {
    k[o] = value;
  } else {
    v[o] = value;
  }
}

fn aux(which: u32, i: u32) -> f32 {
  if (which == 0u) {
    return aux_q[i];
  }
  if (which == 1u) {
    return aux_k[i];
  }
  return aux_v[i];
}

@compute @workgroup_size(64)
fn qk_norm_rope(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) li: u32) {
  let heads = params.H + params.KVH + select(0u, params.KVH, params.mode == 2u);
  let idx = grid_index(wid, nwg);
  if (idx >= params.T * heads) {
    return;
  }
  let t = idx / heads;
  let h = idx % heads;
  var which = 0u;
  var hh = h;
  var nh = params.H;
  if (h >= params.H + params.KVH) {
    which = 2u;
    hh = h - params.H - params.KVH;
    nh = params.KVH;
  } else if (h >= params.H) {
    which = 1u;
    hh = h - params.H;
    nh = params.KVH;
  }
  let D = params.D;
  let o = (t * nh + hh) * D;
  for (var c = li; c < D; c = c + WG) {
    var value = load(which, o + c);
    if (params.mode == 2u) {
      value = value + aux(which, hh * D + c);
    }
    row[c] = value;
  }
  if (which == 2u) {
    for (var c = li; c < D; c = c + WG) {
      store(which, o + c, row[c]);
    }
    return;
  }
  if (params.mode == 1u) {
    var s = 0.0;
    for (var c = li; c < D; c = c + WG) {
      let x = row[c];
      s = s + x * x;
    }
    let inv = 1.0 / sqrt(workgroup_sum(li, s) / f32(D) + params.eps);
    for (var c = li; c < D; c = c + WG) {
      row[c] = row[c] * inv * aux(which, c);
    }
  }
  workgroupBarrier();
  let half = D / 2u;
  for (var i = li; i < half; i = i + WG) {
    let cs = table[positions[t] * half + i];
    let x1 = row[i];
    let x2 = row[i + half];
    store(which, o + i, x1 * cs.x - x2 * cs.y);
    store(which, o + i + half, x2 * cs.x + x1 * cs.y);
  }
}
