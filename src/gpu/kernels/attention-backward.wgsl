// attention backward — gradients of causal GQA attention (attention.wgsl) with the probabilities recomputed from q,
// the cached keys and the forward's log-sum-exp: no (T, S) score or probability matrix in global memory, no atomics.
//
//   for query token t (slot b, position p), head h (kv head g = h / G, G = H / KVH), keys j of t's own sequence:
//   s_tj = scale · q[t, h]·k_j          P_tj = exp(s_tj − lse[t, h])          (scale = 1/sqrt(D))
//   Δ_th = dout[t, h]·out[t, h]          (= Σ_j P_tj · dP_tj)
//   dP_tj = dout[t, h]·v_j               dS_tj = P_tj · (dP_tj − Δ_th)
//   dq[t, h] = scale · Σ_j dS_tj · k_j
//   dk[j, g] = scale · Σ_{t, h in g} dS_tj · q[t, h]        dv[j, g] = Σ_{t, h in g} P_tj · dout[t, h]
//
// Training batches pack each sequence token after token from position 0 in its own cache slot, so key j (token j,
// cached at (slots[j], positions[j])) is seen exactly by the queries t = j .. seqEnds[j] − 1 (seqEnds[j]: one past
// the last token of j's sequence). Three entry points, dispatched in this order:
//   attention_backward_stats  one invocation per (t, h): Δ and the row's lse and cache row into dq[t, h, 0..2]
//                             (dq is scratch until attention_backward_dq writes it; D >= 3)
//   attention_backward_dkdv   one workgroup per (key token j, kv head g): loops over the (query, head) pairs of
//                             its key in tiles of 64, writes dk[j, g] and dv[j, g]
//   attention_backward_dq     one workgroup per (t, h): loops over keys 0 .. positions[t] in tiles of 64, reads its
//                             own row's stats first, then overwrites the row with dq[t, h]
// Parking the stats in dq keeps every entry point within 8 storage bindings (the engine's minimum) and needs no
// scratch buffer: the cache row (slot·S + position, an exact f32 below 2^24) saves the dk/dv pass binding slots and
// positions, and lse is copied because that pass has no binding left for it.
//
// Bindings (group 0), struct AttentionBackwardParams from ATTENTION_BACKWARD_PARAMS in attention-backward.ts
// { T, H, KVH, D, S, scale }, binding 0 in each entry point:
//   stats: 1 dout read f32 (T, H, D) · 2 out read f32 (T, H, D) · 3 lse read f32 (T, H) · 4 slots read u32 (T) ·
//          5 positions read u32 (T) · 6 dq rw f32 (T, H, D)
//   dkdv:  1 q read f32 (T, H, D) · 2 dout read · 3 stats read f32 (T, H, D) (= dq) · 4 seq_ends read u32 (T) ·
//          5 kcache read KvPair (B, S, KVH, D/2) · 6 vcache read · 7 dk rw f32 (T, KVH, D) · 8 dv rw f32 (T, KVH, D)
//   dq:    1 q read · 2 dout read · 3 kcache read · 4 vcache read · 5 slots read · 6 positions read · 7 dq rw
//
// The cache holds `KvPair`s of two values (kv-format.ts: packed f16 halves or vec2<f32>; D is even): it is read in
// pairs, and the dq pass accumulates output pairs i and i+64 (dims 2i, 2i+1, 2i+128, 2i+129) per invocation.
// Workgroups: 64 invocations; in the tiled passes invocation i computes one pair's two D-long dot products (score and
// dP) into workgroup memory, then accumulates output dims over the tile (dk/dv: i, i+64, i+128, i+192), so D <= 256.
// Numerics: f32 arithmetic on the stored (f16- or f32-rounded) keys and values: dk and dv are the gradients of the
// stored values, passed straight through the storage rounding to k and v. Scores are computed exactly as the
// forward computes them (q·scale, then fma over d in order, from the same stored keys), so P is consistent with the
// saved lse; exp(s − lse) <= 1 up to rounding.

const WG: u32 = 64u;
const TILE: u32 = 64u;
const MAX_D: u32 = 256u;
const ACC: u32 = 4u; // MAX_D / WG
const ACC2: u32 = 2u; // MAX_D / 2 / WG pairs per invocation (dq pass)

// ---------------------------------------------------------------------------------------------------------------
// stats

@group(0) @binding(0) var<uniform> params: AttentionBackwardParams;
@group(0) @binding(1) var<storage, read> st_dout: array<f32>;
@group(0) @binding(2) var<storage, read> st_out: array<f32>;
@group(0) @binding(3) var<storage, read> st_lse: array<f32>;
@group(0) @binding(4) var<storage, read> st_slots: array<u32>;
@group(0) @binding(5) var<storage, read> st_positions: array<u32>;
@group(0) @binding(6) var<storage, read_write> st_dq: array<f32>;

@compute @workgroup_size(WG)
fn attention_backward_stats(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                            @builtin(local_invocation_index) li: u32) {
  let job = grid_index(wid, nwg) * WG + li; // t · H + h
  if (job >= params.T * params.H) {
    return;
  }
  let t = job / params.H;
  let D = params.D;
  let o = job * D;
  var delta = 0.0;
  for (var d = 0u; d < D; d = d + 1u) {
    delta = fma(st_dout[o + d], st_out[o + d], delta);
  }
  st_dq[o] = st_lse[job];
  st_dq[o + 1u] = delta;
  st_dq[o + 2u] = f32(st_slots[t] * params.S + st_positions[t]);
}

// ---------------------------------------------------------------------------------------------------------------
// dk, dv

@group(0) @binding(1) var<storage, read> kv_q: array<f32>;
@group(0) @binding(2) var<storage, read> kv_dout: array<f32>;
@group(0) @binding(3) var<storage, read> kv_stats: array<f32>;
@group(0) @binding(4) var<storage, read> kv_seq_ends: array<u32>;
@group(0) @binding(5) var<storage, read> kv_kcache: array<KvPair>;
@group(0) @binding(6) var<storage, read> kv_vcache: array<KvPair>;
@group(0) @binding(7) var<storage, read_write> kv_dk: array<f32>;
@group(0) @binding(8) var<storage, read_write> kv_dv: array<f32>;

var<workgroup> k_s: array<f32, MAX_D>;
var<workgroup> v_s: array<f32, MAX_D>;
var<workgroup> p_s: array<f32, TILE>;
var<workgroup> ds_s: array<f32, TILE>;
var<workgroup> off_s: array<u32, TILE>;
var<workgroup> n_pairs_s: u32;
var<workgroup> kv_base_s: u32;

@compute @workgroup_size(WG)
fn attention_backward_dkdv(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                           @builtin(local_invocation_index) li: u32) {
  let job = grid_index(wid, nwg); // j · KVH + g
  if (job >= params.T * params.KVH) {
    return;
  }
  let j = job / params.KVH;
  let g = job % params.KVH;
  let D = params.D;
  let D2 = D / 2u;
  let H = params.H;
  let G = H / params.KVH;
  if (li == 0u) {
    n_pairs_s = (kv_seq_ends[j] - j) * G;
    // token j's cache row, parked by the stats pass in dq[j, h, 2] of every head h; in pairs of values
    kv_base_s = u32(kv_stats[j * H * D + 2u]) * params.KVH * D2 + g * D2;
  }
  let n_pairs = workgroupUniformLoad(&n_pairs_s); // also the barrier that publishes kv_base_s
  let base = kv_base_s;
  for (var d2 = li; d2 < D2; d2 = d2 + WG) {
    let kk = kv_load(kv_kcache[base + d2]);
    let vv = kv_load(kv_vcache[base + d2]);
    k_s[2u * d2] = kk.x;
    k_s[2u * d2 + 1u] = kk.y;
    v_s[2u * d2] = vv.x;
    v_s[2u * d2 + 1u] = vv.y;
  }
  workgroupBarrier();

  var dk_acc: array<f32, ACC>;
  var dv_acc: array<f32, ACC>;
  for (var i0 = 0u; i0 < n_pairs; i0 = i0 + TILE) {
    let i = i0 + li;
    var p = 0.0;
    var ds = 0.0;
    var o = 0u;
    if (i < n_pairs) {
      let t = j + i / G;
      let h = g * G + i % G;
      o = (t * H + h) * D;
      var s = 0.0;
      var dp = 0.0;
      for (var d = 0u; d < D; d = d + 1u) {
        s = fma(kv_q[o + d] * params.scale, k_s[d], s);
        dp = fma(kv_dout[o + d], v_s[d], dp);
      }
      p = exp(s - kv_stats[o]);
      ds = p * (dp - kv_stats[o + 1u]);
    }
    p_s[li] = p;
    ds_s[li] = ds;
    off_s[li] = o;
    workgroupBarrier();
    let n_tile = min(TILE, n_pairs - i0);
    for (var a = 0u; a < ACC; a = a + 1u) {
      let d = li + a * WG;
      if (d < D) {
        var dk = dk_acc[a];
        var dv = dv_acc[a];
        for (var x = 0u; x < n_tile; x = x + 1u) {
          let ox = off_s[x] + d;
          dk = fma(ds_s[x], kv_q[ox], dk);
          dv = fma(p_s[x], kv_dout[ox], dv);
        }
        dk_acc[a] = dk;
        dv_acc[a] = dv;
      }
    }
    workgroupBarrier(); // p_s, ds_s and off_s are rewritten by the next tile
  }
  for (var a = 0u; a < ACC; a = a + 1u) {
    let d = li + a * WG;
    if (d < D) {
      kv_dk[job * D + d] = dk_acc[a] * params.scale;
      kv_dv[job * D + d] = dv_acc[a];
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// dq

@group(0) @binding(1) var<storage, read> dq_q: array<f32>;
@group(0) @binding(2) var<storage, read> dq_dout: array<f32>;
@group(0) @binding(3) var<storage, read> dq_kcache: array<KvPair>;
@group(0) @binding(4) var<storage, read> dq_vcache: array<KvPair>;
@group(0) @binding(5) var<storage, read> dq_slots: array<u32>;
@group(0) @binding(6) var<storage, read> dq_positions: array<u32>;
@group(0) @binding(7) var<storage, read_write> dq_dq: array<f32>;

var<workgroup> q_s: array<f32, MAX_D>;
var<workgroup> dout_s: array<f32, MAX_D>;
var<workgroup> n_keys_s: u32;
var<workgroup> q_base_s: u32;
var<workgroup> lse_s: f32;
var<workgroup> delta_s: f32;

@compute @workgroup_size(WG)
fn attention_backward_dq(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                         @builtin(local_invocation_index) li: u32) {
  let job = grid_index(wid, nwg); // t · H + h
  if (job >= params.T * params.H) {
    return;
  }
  let t = job / params.H;
  let h = job % params.H;
  let D = params.D;
  let D2 = D / 2u;
  let row2 = params.KVH * D2; // pairs per cache position
  let g = h / (params.H / params.KVH);
  if (li == 0u) {
    n_keys_s = dq_positions[t] + 1u;
    q_base_s = dq_slots[t] * params.S * row2 + g * D2;
    lse_s = dq_dq[job * D];
    delta_s = dq_dq[job * D + 1u];
  }
  for (var d = li; d < D; d = d + WG) {
    q_s[d] = dq_q[job * D + d] * params.scale;
    dout_s[d] = dq_dout[job * D + d];
  }
  // Also the barrier that publishes q_s, dout_s and the row's stats, read before any invocation overwrites the row.
  let n_keys = workgroupUniformLoad(&n_keys_s);
  let base = q_base_s;
  let lse = lse_s;
  let delta = delta_s;

  var acc: array<vec2<f32>, ACC2>;
  for (var j0 = 0u; j0 < n_keys; j0 = j0 + TILE) {
    let j = j0 + li;
    var ds = 0.0;
    if (j < n_keys) {
      let ko = base + j * row2;
      var s = 0.0;
      var dp = 0.0;
      for (var d2 = 0u; d2 < D2; d2 = d2 + 1u) {
        let kk = kv_load(dq_kcache[ko + d2]);
        let vv = kv_load(dq_vcache[ko + d2]);
        s = fma(q_s[2u * d2], kk.x, s);
        s = fma(q_s[2u * d2 + 1u], kk.y, s);
        dp = fma(dout_s[2u * d2], vv.x, dp);
        dp = fma(dout_s[2u * d2 + 1u], vv.y, dp);
      }
      ds = exp(s - lse) * (dp - delta);
    }
    p_s[li] = ds;
    workgroupBarrier();
    let n_tile = min(TILE, n_keys - j0);
    for (var a = 0u; a < ACC2; a = a + 1u) {
      let d2 = li + a * WG;
      if (d2 < D2) {
        var v = acc[a];
        for (var x = 0u; x < n_tile; x = x + 1u) {
          v = fma(vec2<f32>(p_s[x]), kv_load(dq_kcache[base + (j0 + x) * row2 + d2]), v);
        }
        acc[a] = v;
      }
    }
    workgroupBarrier(); // p_s is rewritten by the next tile
  }
  for (var a = 0u; a < ACC2; a = a + 1u) {
    let d2 = li + a * WG;
    if (d2 < D2) {
      let o = acc[a] * params.scale;
      dq_dq[job * D + 2u * d2] = o.x;
      dq_dq[job * D + 2u * d2 + 1u] = o.y;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Row variants for small heads (D <= ROW_MAX_D): one invocation per job instead of one workgroup, no workgroup memory
// and no barrier. At a small D the tiled passes keep most of a workgroup's invocations idle in the accumulation and
// pay a workgroup (and its barriers) per job; on SwiftShader that per-workgroup cost was ~0.25 ms, 13 of a toy GRPO
// update's 20 s (the default there: attention-backward.ts `defaultAttentionBackwardVariant`). Same bindings as the
// tiled passes (the kv_* and dq_* variables above) and the same arithmetic in the same order (scores: q·scale then
// fma over d; sums over keys or pairs in order), so both give the same numbers. Like the tiled passes they trust the
// index buffers the trainer builds: a sequence end before its own token would run a key's loop ~2^32 times.

const ROW_MAX_D: u32 = 32u;

@compute @workgroup_size(WG)
fn attention_backward_dkdv_row(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                               @builtin(local_invocation_index) li: u32) {
  let job = grid_index(wid, nwg) * WG + li; // j · KVH + g
  if (job >= params.T * params.KVH) {
    return;
  }
  let j = job / params.KVH;
  let g = job % params.KVH;
  let D = params.D;
  let D2 = D / 2u;
  let H = params.H;
  let G = H / params.KVH;
  let n_pairs = (kv_seq_ends[j] - j) * G;
  let base = u32(kv_stats[j * H * D + 2u]) * params.KVH * D2 + g * D2; // token j's cache row (stats pass), in pairs
  var k: array<f32, ROW_MAX_D>;
  var v: array<f32, ROW_MAX_D>;
  var dk: array<f32, ROW_MAX_D>;
  var dv: array<f32, ROW_MAX_D>;
  for (var d2 = 0u; d2 < D2; d2 = d2 + 1u) {
    let kk = kv_load(kv_kcache[base + d2]);
    let vv = kv_load(kv_vcache[base + d2]);
    k[2u * d2] = kk.x;
    k[2u * d2 + 1u] = kk.y;
    v[2u * d2] = vv.x;
    v[2u * d2 + 1u] = vv.y;
  }
  for (var i = 0u; i < n_pairs; i = i + 1u) {
    let t = j + i / G;
    let h = g * G + i % G;
    let o = (t * H + h) * D;
    var s = 0.0;
    var dp = 0.0;
    for (var d = 0u; d < D; d = d + 1u) {
      s = fma(kv_q[o + d] * params.scale, k[d], s);
      dp = fma(kv_dout[o + d], v[d], dp);
    }
    let p = exp(s - kv_stats[o]);
    let ds = p * (dp - kv_stats[o + 1u]);
    for (var d = 0u; d < D; d = d + 1u) {
      dk[d] = fma(ds, kv_q[o + d], dk[d]);
      dv[d] = fma(p, kv_dout[o + d], dv[d]);
    }
  }
  for (var d = 0u; d < D; d = d + 1u) {
    kv_dk[job * D + d] = dk[d] * params.scale;
    kv_dv[job * D + d] = dv[d];
  }
}

@compute @workgroup_size(WG)
fn attention_backward_dq_row(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                             @builtin(local_invocation_index) li: u32) {
  let job = grid_index(wid, nwg) * WG + li; // t · H + h
  if (job >= params.T * params.H) {
    return;
  }
  let t = job / params.H;
  let h = job % params.H;
  let D = params.D;
  let D2 = D / 2u;
  let row2 = params.KVH * D2; // pairs per cache position
  let g = h / (params.H / params.KVH);
  let n_keys = dq_positions[t] + 1u;
  let base = dq_slots[t] * params.S * row2 + g * D2;
  // The row's stats (parked by the stats pass) are read before this invocation overwrites the row with dq.
  let lse = dq_dq[job * D];
  let delta = dq_dq[job * D + 1u];
  var q: array<f32, ROW_MAX_D>;
  var dout: array<f32, ROW_MAX_D>;
  var acc: array<f32, ROW_MAX_D>;
  var k: array<f32, ROW_MAX_D>; // key j, read once for its score and its share of dq
  for (var d = 0u; d < D; d = d + 1u) {
    q[d] = dq_q[job * D + d] * params.scale;
    dout[d] = dq_dout[job * D + d];
  }
  for (var j = 0u; j < n_keys; j = j + 1u) {
    let ko = base + j * row2;
    var s = 0.0;
    var dp = 0.0;
    for (var d2 = 0u; d2 < D2; d2 = d2 + 1u) {
      let kk = kv_load(dq_kcache[ko + d2]);
      let vv = kv_load(dq_vcache[ko + d2]);
      k[2u * d2] = kk.x;
      k[2u * d2 + 1u] = kk.y;
      s = fma(q[2u * d2], kk.x, s);
      s = fma(q[2u * d2 + 1u], kk.y, s);
      dp = fma(dout[2u * d2], vv.x, dp);
      dp = fma(dout[2u * d2 + 1u], vv.y, dp);
    }
    let ds = exp(s - lse) * (dp - delta);
    for (var d = 0u; d < D; d = d + 1u) {
      acc[d] = fma(ds, k[d], acc[d]);
    }
  }
  for (var d = 0u; d < D; d = d + 1u) {
    dq_dq[job * D + d] = acc[d] * params.scale;
  }
}
