// attention — causal grouped-query attention of new tokens over the KV cache, flash style (online softmax): the
// (T, S) score matrix never exists in global memory, only one tile of 64 scores per workgroup at a time.
//
//   for query token t (slot b = slots[t], absolute position p = positions[t]) and head h (kv head g = h / (H/KVH)):
//   s_j = (q[t, h, :] · kcache[b, j, g, :]) / sqrt(D)           for keys j = 0 .. p (causal by absolute position)
//   out[t, h, :] = Σ_j softmax(s)_j · vcache[b, j, g, :]
//   lse[t, h]   = log Σ_j exp(s_j)                              (kept for the backward pass, which recomputes P)
//
// One kernel serves prefill (T tokens of one or more sequences, each at its own positions) and batched decode (one
// token per sequence, sequences of different lengths): every query token carries its slot and position. The keys
// and values of the new tokens must already be in the cache (kvcache.wgsl).
//
// Bindings (group 0), struct AttentionParams from ATTENTION_PARAMS in attention.ts:
//   0 params     uniform  AttentionParams { T, H, KVH, D, S, scale }     (scale = 1/sqrt(D))
//   1 q          read     f32 (T, H, D), after RoPE
//   2 kcache     read     KvPair (B, S, KVH, D/2)   two values per element, kv-format.ts (packed f16 or vec2<f32>)
//   3 vcache     read     KvPair (B, S, KVH, D/2)
//   4 slots      read     u32 (T)
//   5 positions  read     u32 (T), each < S
//   6 out        rw       f32 (T, H, D)
//   7 lse        rw       f32 (T, H)
//
// Workgroup (attention_forward): 64 invocations per (t, h) (grid_index over T·H workgroups). Keys go in tiles of 64, one per
// invocation: each computes its key's score (a D-long dot product), the tile's max and sum come from tree
// reductions in workgroup memory, and the running (max m, sum l, accumulator) are rescaled by exp(m_old − m_new).
// The cache is read in pairs of values (D is even): invocation i accumulates output pairs i and i+64, i.e. dims
// 2i, 2i+1, 2i+128, 2i+129, so D <= 256.
// Numerics: f32 arithmetic on the stored (f16- or f32-rounded) keys and values; NEG_BIG (−1e30) instead of −inf for
// masked scores. The first tile always holds key 0, so l > 0 at the end.
// Backward: attention-backward.wgsl (dq, dk, dv from dout, recomputing P from q, the cached k and lse).

const WG: u32 = 64u;
const TILE: u32 = 64u;
const MAX_D: u32 = 256u;
const ACC: u32 = 2u; // MAX_D / 2 / WG pairs per invocation

@group(0) @binding(0) var<uniform> params: AttentionParams;
@group(0) @binding(1) var<storage, read> q: array<f32>;
@group(0) @binding(2) var<storage, read> kcache: array<KvPair>;
@group(0) @binding(3) var<storage, read> vcache: array<KvPair>;
@group(0) @binding(4) var<storage, read> slots: array<u32>;
@group(0) @binding(5) var<storage, read> positions: array<u32>;
@group(0) @binding(6) var<storage, read_write> out: array<f32>;
@group(0) @binding(7) var<storage, read_write> lse: array<f32>;

var<workgroup> q_s: array<f32, MAX_D>;
var<workgroup> p_s: array<f32, TILE>;
var<workgroup> red: array<f32, WG>;
var<workgroup> n_keys_s: u32;
var<workgroup> base_s: u32;

fn reduce_max(li: u32) -> f32 {
  for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
    if (li < stride) {
      red[li] = max(red[li], red[li + stride]);
    }
    workgroupBarrier();
  }
  return red[0];
}

fn reduce_sum(li: u32) -> f32 {
  for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
    if (li < stride) {
      red[li] = red[li] + red[li + stride];
    }
    workgroupBarrier();
  }
  return red[0];
}

@compute @workgroup_size(WG)
fn attention_forward(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
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
    n_keys_s = positions[t] + 1u;
    base_s = slots[t] * params.S * row2 + g * D2;
  }
  for (var d = li; d < D; d = d + WG) {
    q_s[d] = q[job * D + d] * params.scale;
  }
  let n_keys = workgroupUniformLoad(&n_keys_s); // also the barrier that publishes q_s and base_s
  let base = base_s;

  var m = NEG_BIG;
  var l = 0.0;
  var acc: array<vec2<f32>, ACC>;
  for (var j0 = 0u; j0 < n_keys; j0 = j0 + TILE) {
    let j = j0 + li;
    var s = NEG_BIG;
    if (j < n_keys) {
      let ko = base + j * row2;
      var dot = 0.0;
      for (var d2 = 0u; d2 < D2; d2 = d2 + 1u) {
        let kk = kv_load(kcache[ko + d2]);
        dot = fma(q_s[2u * d2], kk.x, dot);
        dot = fma(q_s[2u * d2 + 1u], kk.y, dot);
      }
      s = dot;
    }
    red[li] = s;
    workgroupBarrier();
    let m_new = max(m, reduce_max(li));
    workgroupBarrier(); // all have read red[0]
    var p = 0.0;
    if (j < n_keys) {
      p = exp(s - m_new);
    }
    p_s[li] = p;
    red[li] = p;
    workgroupBarrier();
    let tile_sum = reduce_sum(li);
    let corr = exp(m - m_new);
    l = l * corr + tile_sum;
    m = m_new;
    let n_tile = min(TILE, n_keys - j0);
    for (var a = 0u; a < ACC; a = a + 1u) {
      let d2 = li + a * WG;
      if (d2 < D2) {
        var v = acc[a] * corr;
        for (var i = 0u; i < n_tile; i = i + 1u) {
          v = fma(vec2<f32>(p_s[i]), kv_load(vcache[base + (j0 + i) * row2 + d2]), v);
        }
        acc[a] = v;
      }
    }
    workgroupBarrier(); // p_s and red are rewritten by the next tile
  }
  for (var a = 0u; a < ACC; a = a + 1u) {
    let d2 = li + a * WG;
    if (d2 < D2) {
      let o = acc[a] / l;
      out[job * D + 2u * d2] = o.x;
      out[job * D + 2u * d2 + 1u] = o.y;
    }
  }
  if (li == 0u) {
    lse[job] = m + log(l);
  }
}

// attention_forward_row (for a CPU adapter, D ≤ ROW_MAX_D; attention.ts picks it): one invocation per (t, h),
// ROW_WG per workgroup (grid_index over ⌈T·H / ROW_WG⌉), no workgroup memory or barriers. The workgroup variant pays
// five barriers and two tree reductions per tile of 64 keys (69 ms per dispatch at T = 320, H = 4, D = 16 on
// SwiftShader). This one replays its arithmetic in the same order in private memory — tiles of 64 keys, the same
// dot products, the tile's max, the same pairwise tree for the tile's sum, the same rescaling and fma chain — so the
// two give the same bits (decode uses the workgroup variant and a T-token forward this one; sampled log-probs must
// equal the trainer's scores).
const ROW_WG: u32 = 16u;
const ROW_MAX_D: u32 = 64u;

@compute @workgroup_size(ROW_WG)
fn attention_forward_row(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                         @builtin(local_invocation_index) li: u32) {
  let job = grid_index(wid, nwg) * ROW_WG + li; // t · H + h
  if (job >= params.T * params.H) {
    return;
  }
  let t = job / params.H;
  let h = job % params.H;
  let D = params.D;
  let D2 = D / 2u;
  let row2 = params.KVH * D2;
  let g = h / (params.H / params.KVH);
  let n_keys = positions[t] + 1u;
  let base = slots[t] * params.S * row2 + g * D2;
  var qs: array<f32, ROW_MAX_D>;
  for (var d = 0u; d < D; d = d + 1u) {
    qs[d] = q[job * D + d] * params.scale;
  }
  var m = NEG_BIG;
  var l = 0.0;
  var acc: array<vec2<f32>, ROW_MAX_D / 2u>;
  var sp: array<f32, TILE>;
  for (var j0 = 0u; j0 < n_keys; j0 = j0 + TILE) {
    let n_tile = min(TILE, n_keys - j0);
    var tile_max = NEG_BIG;
    for (var i = 0u; i < TILE; i = i + 1u) {
      var s = NEG_BIG;
      if (i < n_tile) {
        let ko = base + (j0 + i) * row2;
        var dot = 0.0;
        for (var d2 = 0u; d2 < D2; d2 = d2 + 1u) {
          let kk = kv_load(kcache[ko + d2]);
          dot = fma(qs[2u * d2], kk.x, dot);
          dot = fma(qs[2u * d2 + 1u], kk.y, dot);
        }
        s = dot;
      }
      sp[i] = s;
      tile_max = max(tile_max, s); // max is exact in any order
    }
    let m_new = max(m, tile_max);
    for (var i = 0u; i < TILE; i = i + 1u) {
      var p = 0.0;
      if (i < n_tile) {
        p = exp(sp[i] - m_new);
      }
      sp[i] = p;
    }
    // The tile's sum by the workgroup variant's tree, into tsum; sp keeps the probabilities for the values.
    var red: array<f32, TILE>;
    for (var i = 0u; i < TILE; i = i + 1u) {
      red[i] = sp[i];
    }
    for (var stride = TILE / 2u; stride > 0u; stride = stride / 2u) {
      for (var i = 0u; i < stride; i = i + 1u) {
        red[i] = red[i] + red[i + stride];
      }
    }
    let corr = exp(m - m_new);
    l = l * corr + red[0];
    m = m_new;
    for (var d2 = 0u; d2 < D2; d2 = d2 + 1u) {
      var v = acc[d2] * corr;
      for (var i = 0u; i < n_tile; i = i + 1u) {
        v = fma(vec2<f32>(sp[i]), kv_load(vcache[base + (j0 + i) * row2 + d2]), v);
      }
      acc[d2] = v;
    }
  }
  for (var d2 = 0u; d2 < D2; d2 = d2 + 1u) {
    let o = acc[d2] / l;
    out[job * D + 2u * d2] = o.x;
    out[job * D + 2u * d2 + 1u] = o.y;
  }
  lse[job] = m + log(l);
}
