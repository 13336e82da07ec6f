// logsoftmax — log-probabilities over the vocabulary, per row of logits:
//
//   lse[m]        = log Σ_v exp(logits[m, v])                      (max-subtracted, in f32)
//   out[m, v]     = logits[m, v] − lse[m]                           (entry log_softmax)
//   logprob[m]    = logits[m, targets[m]] − lse[m]                  (entry token_logprob: no (M, V) output)
//   dlogits[m, v] = dlogprob[m] · ([v = targets[m]] − exp(dlogits[m, v] − lse[m]))
//                                                                   (entry token_logprob_backward, IN PLACE: the
//                                                                    chunk's logits become their gradient)
//
// token_logprob is what training and sampling need per chosen token: the LM head's logits are produced for a chunk
// of rows at a time and reduced to one number per row here, so a (T, V) matrix never exists.
//
// Bindings (group 0), struct LogSoftmaxParams from LOG_SOFTMAX_PARAMS in logsoftmax.ts:
//   0 params   uniform  LogSoftmaxParams { M, V }
//   1 logits   read     f32 (M, V)
//   2 out      rw       f32 (M, V)       (log_softmax only)
//   3 lse      rw       f32 (M)
//   4 targets  read     u32 (M), < V     (token_logprob only)
//   5 logprob  rw       f32 (M)          (token_logprob only)
//   6 dlogits  rw       f32 (M, V)       (token_logprob_backward only: holds the logits, overwritten)
//   7 dlogprob read     f32 (M)          (token_logprob_backward only)
// token_logprob_backward binds 0, 3 (only read: the forward's lse), 4, 6 and 7.
//
// Workgroup: 256 invocations per row (grid_index over M rows). Each keeps an online (max, sum) over a strided
// slice of the row; a tree reduction merges the pairs as (m, s) ⊕ (m', s') = (M, s·e^(m−M) + s'·e^(m'−M)).
// token_logprob_row (a variant of token_logprob for short rows, V ≤ TOKEN_ROW_MAX_V in logsoftmax.ts): one
// invocation per row, 64 rows per workgroup (grid_index over ⌈M/64⌉), the same online (max, sum) over the whole row
// in index order, no workgroup memory or barriers (the tree variant pays nine barriers per row and, at V = 512, has
// each invocation read two values: 14 ms per dispatch of 320 rows on SwiftShader). Same result to rounding.
// token_logprob_backward needs no reduction (the forward's lse is given): each invocation rewrites a strided slice
// of its row; a row whose dlogprob is 0 becomes exactly 0. Numerics: softmax as exp(x − lse) ≤ 1 (no overflow).
// (The full log_softmax backward, dlogits = dout − exp(out)·Σ dout, is not needed by training and is not here.)

const WG: u32 = 256u;

@group(0) @binding(0) var<uniform> params: LogSoftmaxParams;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<storage, read_write> lse: array<f32>;
@group(0) @binding(4) var<storage, read> targets: array<u32>;
@group(0) @binding(5) var<storage, read_write> logprob: array<f32>;
@group(0) @binding(6) var<storage, read_write> dlogits: array<f32>;
@group(0) @binding(7) var<storage, read> dlogprob: array<f32>;

var<workgroup> red_m: array<f32, WG>;
var<workgroup> red_s: array<f32, WG>;

// The row's log-sum-exp, identical in every invocation of the workgroup.
fn row_lse(row: u32, li: u32) -> f32 {
  let o = row * params.V;
  var m = NEG_BIG;
  var s = 0.0;
  for (var v = li; v < params.V; v = v + WG) {
    let x = logits[o + v];
    if (x > m) {
      s = s * exp(m - x) + 1.0;
      m = x;
    } else {
      s = s + exp(x - m);
    }
  }
  red_m[li] = m;
  red_s[li] = s;
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
    if (li < stride) {
      let m2 = red_m[li + stride];
      let s2 = red_s[li + stride];
      let m1 = red_m[li];
      let mm = max(m1, m2);
      red_s[li] = red_s[li] * exp(m1 - mm) + s2 * exp(m2 - mm);
      red_m[li] = mm;
    }
    workgroupBarrier();
  }
  return red_m[0] + log(red_s[0]);
}

@compute @workgroup_size(WG)
fn log_softmax(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) li: u32) {
  let row = grid_index(wid, nwg);
  if (row >= params.M) {
    return;
  }
  let l = row_lse(row, li);
  let o = row * params.V;
  for (var v = li; v < params.V; v = v + WG) {
    out[o + v] = logits[o + v] - l;
  }
  if (li == 0u) {
    lse[row] = l;
  }
}

@compute @workgroup_size(WG)
fn token_logprob(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) li: u32) {
  let row = grid_index(wid, nwg);
  if (row >= params.M) {
    return;
  }
  let l = row_lse(row, li);
  if (li == 0u) {
    lse[row] = l;
    logprob[row] = logits[row * params.V + targets[row]] - l;
  }
}

@compute @workgroup_size(64)
fn token_logprob_row(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                     @builtin(local_invocation_index) li: u32) {
  let row = grid_index(wid, nwg) * 64u + li;
  if (row >= params.M) {
    return;
  }
  let o = row * params.V;
  var m = NEG_BIG;
  var s = 0.0;
  for (var v = 0u; v < params.V; v = v + 1u) {
    let x = logits[o + v];
    if (x > m) {
      s = s * exp(m - x) + 1.0;
      m = x;
    } else {
      s = s + exp(x - m);
    }
  }
  let l = m + log(s);
  lse[row] = l;
  logprob[row] = logits[o + targets[row]] - l;
}

@compute @workgroup_size(WG)
fn token_logprob_backward(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                          @builtin(local_invocation_index) li: u32) {
  let row = grid_index(wid, nwg);
  if (row >= params.M) {
    return;
  }
  let o = row * params.V;
  let g = dlogprob[row];
  let l = lse[row];
  let chosen = targets[row];
  for (var v = li; v < params.V; v = v + WG) {
    let onehot = select(0.0, 1.0, v == chosen);
    dlogits[o + v] = g * (onehot - exp(dlogits[o + v] - l));
  }
}
