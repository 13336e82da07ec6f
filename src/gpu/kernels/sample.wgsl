// sample — one token per row of logits, drawn on the GPU, with its log-probability under the distribution used:
//
//   greedy (temperature 0):  token = argmax_v logits[m, v] (lowest index on ties), logprob = 0 (a point mass)
//   otherwise:               z_v = logits[m, v] / temperature
//                            kept = top-k of z (k = 0: all), then the top-p nucleus of the renormalised kept set
//                            q_v  = exp(z_v) / Σ_kept exp(z)        for v in kept, 0 elsewhere
//                            token ~ q (inverse CDF in vocabulary order at u·Σ),  logprob = log q_token
//
// The kept set is a threshold on z, found exactly by a bit-by-bit search over the order-preserving u32 key of f32:
//   top-k:  τk = the largest key with #{v : key(z_v) >= τk} >= k            (the k-th largest z; ties all kept)
//   top-p:  τp = the largest key with Σ_{key(z_v) >= max(τp, τk)} e_v >= top_p · Σ_{key(z_v) >= τk} e_v
//   kept = {v : key(z_v) >= max(τk, τp)},  e_v = exp(z_v − max z)
// i.e. the smallest prefix of the tokens sorted by z whose mass reaches top_p of the top-k mass, with every token
// tied at the boundary kept; this is the definition the CPU reference (src/gpu-tests/sample-ref.ts) implements.
// Each search is 32 passes over the row; a search whose filter is off (top_k = 0 or ≥ V; top_p ≥ 1) is skipped.
//
// Randomness is counter-based: u = (pcg3d(seed, sequence, step).x >> 8) / 2^24, uniform on [0, 1) in steps of
// 2^-24, keyed only by the row's own key, so a sequence's draws do not depend on which sequences share the batch
// (sample-rng.ts is the same hash in TypeScript).
//
// Bindings (group 0), struct SampleParams from SAMPLE_PARAMS in sample.ts:
//   0 params  uniform  SampleParams { M, V, temperature, top_p, top_k, greedy }
//   1 logits  read     f32 (M, V)
//   2 keys    read     u32 (M, 4): seed, sequence, step, unused
//   3 out     rw       u32 (M, 4): token, bitcast(logprob f32), bitcast(u f32), kept-token count
//
// Workgroup: WG invocations per row (grid_index over M rows): 256, or 32 for small vocabularies (V <= 2048: fewer
// barriers per reduction when there are many short rows). Reductions are tree reductions in workgroup memory.
// The draw: each invocation sums the kept mass of a contiguous slice of ⌈V/WG⌉ tokens; invocation 0 scans the WG
// partial sums and picks the slice where u·Σ falls; that slice's invocation walks its tokens in order to the crossing
// (if rounding leaves the crossing just past its last kept token, that token is taken).
// Numerics: f32 throughout; log q_token = (z_token − max z) − log Σ_kept e.

// const WG: u32 = 256u or 32u, prepended by sample.ts (the workgroup size of this compilation).
const NONE: u32 = 0xffffffffu;

@group(0) @binding(0) var<uniform> params: SampleParams;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> keys: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;

var<workgroup> red_f: array<f32, WG>;
var<workgroup> red_u: array<u32, WG>;
var<workgroup> partial: array<f32, WG>;
var<workgroup> chosen: u32;
var<workgroup> chosen_target: f32;
var<workgroup> chosen_total: f32;

// Jarzynski & Olano, "Hash Functions for GPU Rendering" (2020): pcg3d. u32 arithmetic wraps.
fn pcg3d(key: vec3<u32>) -> vec3<u32> {
  var v = key * 1664525u + vec3<u32>(1013904223u);
  v.x = v.x + v.y * v.z;
  v.y = v.y + v.z * v.x;
  v.z = v.z + v.x * v.y;
  v = v ^ (v >> vec3<u32>(16u));
  v.x = v.x + v.y * v.z;
  v.y = v.y + v.z * v.x;
  v.z = v.z + v.x * v.y;
  return v;
}

fn uniform01(seed: u32, sequence: u32, step: u32) -> f32 {
  return f32(pcg3d(vec3<u32>(seed, sequence, step)).x >> 8u) * (1.0 / 16777216.0);
}

// Order-preserving map of f32 to u32: a < b  ⇔  order_key(a) < order_key(b) (for non-NaN, −0 just below +0).
fn order_key(x: f32) -> u32 {
  let b = bitcast<u32>(x);
  return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}

fn z_at(o: u32, v: u32) -> f32 {
  return logits[o + v] / params.temperature;
}

// Workgroup-wide reductions; every invocation gets the result. Call in uniform control flow.
fn sum_f(li: u32, value: f32) -> f32 {
  red_f[li] = value;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s = s / 2u) {
    if (li < s) {
      red_f[li] = red_f[li] + red_f[li + s];
    }
    workgroupBarrier();
  }
  let r = red_f[0];
  workgroupBarrier();
  return r;
}

fn max_f(li: u32, value: f32) -> f32 {
  red_f[li] = value;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s = s / 2u) {
    if (li < s) {
      red_f[li] = max(red_f[li], red_f[li + s]);
    }
    workgroupBarrier();
  }
  let r = red_f[0];
  workgroupBarrier();
  return r;
}

fn sum_u(li: u32, value: u32) -> u32 {
  red_u[li] = value;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s = s / 2u) {
    if (li < s) {
      red_u[li] = red_u[li] + red_u[li + s];
    }
    workgroupBarrier();
  }
  let r = red_u[0];
  workgroupBarrier();
  return r;
}

fn greedy(row: u32, li: u32) {
  let o = row * params.V;
  var best_x = NEG_BIG;
  var best_i = NONE;
  for (var v = li; v < params.V; v = v + WG) {
    let x = logits[o + v];
    if (best_i == NONE || x > best_x) {
      best_x = x;
      best_i = v;
    }
  }
  red_f[li] = best_x;
  red_u[li] = best_i;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s = s / 2u) {
    if (li < s) {
      let x2 = red_f[li + s];
      let i2 = red_u[li + s];
      let x1 = red_f[li];
      let i1 = red_u[li];
      if (i2 != NONE && (i1 == NONE || x2 > x1 || (x2 == x1 && i2 < i1))) {
        red_f[li] = x2;
        red_u[li] = i2;
      }
    }
    workgroupBarrier();
  }
  if (li == 0u) {
    out[row * 4u] = red_u[0];
    out[row * 4u + 1u] = bitcast<u32>(0.0);
    out[row * 4u + 2u] = bitcast<u32>(0.0);
    out[row * 4u + 3u] = 1u;
  }
}

@compute @workgroup_size(WG)
fn sample(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) li: u32) {
  let row = grid_index(wid, nwg);
  if (row >= params.M) {
    return;
  }
  if (params.greedy != 0u) {
    greedy(row, li);
    return;
  }
  let V = params.V;
  let o = row * V;

  var local_max = NEG_BIG;
  for (var v = li; v < V; v = v + WG) {
    local_max = max(local_max, z_at(o, v));
  }
  let zmax = max_f(li, local_max);

  // Top-k threshold (0 keeps everything: every key is >= 0).
  var tau_k = 0u;
  if (params.top_k != 0u && params.top_k < V) {
    for (var bit = 31i; bit >= 0i; bit = bit - 1i) {
      let cand = tau_k | (1u << u32(bit));
      var c = 0u;
      for (var v = li; v < V; v = v + WG) {
        c = c + select(0u, 1u, order_key(z_at(o, v)) >= cand);
      }
      if (sum_u(li, c) >= params.top_k) {
        tau_k = cand;
      }
    }
  }

  // Top-p threshold over the top-k set.
  var tau = tau_k;
  if (params.top_p < 1.0) {
    var s = 0.0;
    for (var v = li; v < V; v = v + WG) {
      let z = z_at(o, v);
      s = s + select(0.0, exp(z - zmax), order_key(z) >= tau_k);
    }
    let goal = params.top_p * sum_f(li, s);
    var t = 0u;
    for (var bit = 31i; bit >= 0i; bit = bit - 1i) {
      let cand = t | (1u << u32(bit));
      let lo = max(cand, tau_k);
      var m = 0.0;
      for (var v = li; v < V; v = v + WG) {
        let z = z_at(o, v);
        m = m + select(0.0, exp(z - zmax), order_key(z) >= lo);
      }
      if (sum_f(li, m) >= goal) {
        t = cand;
      }
    }
    tau = max(t, tau_k);
  }

  // Kept mass per contiguous slice, then the draw.
  let per = (V + WG - 1u) / WG;
  let v0 = min(li * per, V);
  let v1 = min(v0 + per, V);
  var part = 0.0;
  var count = 0u;
  for (var v = v0; v < v1; v = v + 1u) {
    let z = z_at(o, v);
    if (order_key(z) >= tau) {
      part = part + exp(z - zmax);
      count = count + 1u;
    }
  }
  partial[li] = part;
  let kept = sum_u(li, count); // its barriers also publish partial[]
  let u = uniform01(keys[row * 4u], keys[row * 4u + 1u], keys[row * 4u + 2u]);
  if (li == 0u) {
    var total = 0.0;
    var last = 0u;
    for (var i = 0u; i < WG; i = i + 1u) {
      red_f[i] = total; // exclusive prefix
      if (partial[i] > 0.0) {
        last = i;
      }
      total = total + partial[i];
    }
    let want = u * total;
    var pick = NONE;
    for (var i = 0u; i < WG; i = i + 1u) {
      if (pick == NONE && partial[i] > 0.0 && want < red_f[i] + partial[i]) {
        pick = i;
      }
    }
    if (pick == NONE) {
      pick = last;
    }
    chosen = pick;
    chosen_target = want - red_f[pick];
    chosen_total = total;
  }
  workgroupBarrier();
  if (li == chosen) {
    var acc = 0.0;
    var token = NONE;
    var last_kept = NONE;
    for (var v = v0; v < v1; v = v + 1u) {
      let z = z_at(o, v);
      if (order_key(z) >= tau) {
        acc = acc + exp(z - zmax);
        last_kept = v;
        if (token == NONE && chosen_target < acc) {
          token = v;
        }
      }
    }
    if (token == NONE) {
      token = last_kept;
    }
    let logprob = (z_at(o, token) - zmax) - log(chosen_total);
    out[row * 4u] = token;
    out[row * 4u + 1u] = bitcast<u32>(logprob);
    out[row * 4u + 2u] = bitcast<u32>(u);
    out[row * 4u + 3u] = kept;
  }
}
