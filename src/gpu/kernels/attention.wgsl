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
//   2 kcache     read     f32 (B, S, KVH, D)
//   3 vcache     read     f32 (B, S, KVH, D)
//   4 slots      read     u32 (T)
//   5 positions  read     u32 (T), each < S
//   6 out        rw       f32 (T, H, D)
//   7 lse        rw       f32 (T, H)
//
// Workgroup: 64 invocations per (t, h) (grid_index over T·H workgroups). Keys go in tiles of 64, one per
// invocation: each computes its key's score (a D-long dot product), the tile's max and sum come from tree
// reductions in workgroup memory, and the running (max m, sum l, accumulator) are rescaled by exp(m_old − m_new).
// Invocation i accumulates output dims i, i+64, i+128, i+192, so D <= 256.
// Numerics: f32 throughout; NEG_BIG (−1e30) instead of −inf for masked scores. The first tile always holds key 0,
// so l > 0 at the end.
// Backward (dq, dk, dv from dout, recomputing P from q, k and lse; D_t = Σ dout·out) will join this file.

const WG: u32 = 64u;
const TILE: u32 = 64u;
const MAX_D: u32 = 256u;
const ACC: u32 = 4u; // MAX_D / WG

@group(0) @binding(0) var<uniform> params: AttentionParams;
@group(0) @binding(1) var<storage, read> q: array<f32>;
@group(0) @binding(2) var<storage, read> kcache: array<f32>;
@group(0) @binding(3) var<storage, read> vcache: array<f32>;
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
  let row = params.KVH * D; // floats per cache position
  let g = h / (params.H / params.KVH);
  if (li == 0u) {
    n_keys_s = positions[t] + 1u;
    base_s = slots[t] * params.S * row + g * D;
  }
  for (var d = li; d < D; d = d + WG) {
    q_s[d] = q[job * D + d] * params.scale;
  }
  let n_keys = workgroupUniformLoad(&n_keys_s); // also the barrier that publishes q_s and base_s
  let base = base_s;

  var m = NEG_BIG;
  var l = 0.0;
  var acc: array<f32, ACC>;
  for (var j0 = 0u; j0 < n_keys; j0 = j0 + TILE) {
    let j = j0 + li;
    var s = NEG_BIG;
    if (j < n_keys) {
      let ko = base + j * row;
      var dot = 0.0;
      for (var d = 0u; d < D; d = d + 1u) {
        dot = fma(q_s[d], kcache[ko + d], dot);
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
      let d = li + a * WG;
      if (d < D) {
        var v = acc[a] * corr;
        for (var i = 0u; i < n_tile; i = i + 1u) {
          v = fma(p_s[i], vcache[base + (j0 + i) * row + d], v);
        }
        acc[a] = v;
      }
    }
    workgroupBarrier(); // p_s and red are rewritten by the next tile
  }
  for (var a = 0u; a < ACC; a = a + 1u) {
    let d = li + a * WG;
    if (d < D) {
      out[job * D + d] = acc[a] / l;
    }
  }
  if (li == 0u) {
    lse[job] = m + log(l);
  }
}
