// matmul_backward — gradients of a linear layer y = x·Wᵀ + scale·(x·Aᵀ)·Bᵀ with W frozen (stored packed: f16, q8
// or q4, dequantised here) and a trainable LoRA pair A (R, K), B (N, R) in f32:
//
//   dx_base   dx[m, k]  (+)= Σ_n dy[m, n0 + n] · W[n, k]         (one dispatch per weight chunk of N rows)
//   lora_db   dB[n, r]   += scale · Σ_m dy[m, n] · u[m, r]        (u = x·Aᵀ, kept by the forward)
//   lora_du   du[m, r]    = scale · Σ_n dy[m, n] · B[n, r]
//   lora_da   dA[r, k]   += Σ_m du[m, r] · x[m, k]
//   lora_dx   dx[m, k]   += Σ_r du[m, r] · A[r, k]
//
// for m < M, n < N, k < K, r < R. W is one row-chunk (rows n0 .. n0+N of the weight (N_total, K), HF Linear layout)
// read only through w_pair(n, p) -> (W[n, 2p], W[n, 2p+1]), composed in front of this source by matmul-backward.ts
// for the weight's format (quant.ts), exactly as matmul.wgsl reads it. dy is (M, ldy = N_total): a chunk reads its
// own slice of columns. The chunk sums are added into dx one dispatch after the other (dx = dx + chunk sum), the
// first one written (dx = sum) when `accumulate` is 0.
//
// Bindings (group 0), struct MatmulBackwardParams generated from MATMUL_BACKWARD_PARAMS in matmul-backward.ts:
//   0 params  uniform  MatmulBackwardParams { M, N, K, n0, ldy, accumulate, rank, scale }
//   1 dy      read     f32 (M, ldy)
//   2 w       read     u32 (N, row words) packed (dx_base only)
//   3 dx      rw       f32 (M, K)                 (dx_base, lora_dx)
//   4 x       read     f32 (M, K)                 (lora_da)
//   5 lora_u  read     f32 (M, R)                 (lora_db)
//   6 lora_a  read     f32 (R, K)                 (lora_dx)
//   7 lora_b  read     f32 (N, R)                 (lora_du)
//   8 da      rw       f32 (R, K)                 (lora_da)
//   9 db      rw       f32 (N, R)                 (lora_db)
//  10 du      rw       f32 (M, R)                 (written by lora_du, read by lora_da and lora_dx)
//
// Entry points and workgroups:
//   dx_tiled    workgroup (16, 16) computes a 64×64 tile of dx (64 rows m × 64 columns k), 4×4 per invocation; the
//               reduction over n in steps of 16 through workgroup memory (dy tile 64×16, W tile 16 rows × 64
//               columns unpacked to f32). Dispatch (⌈K/64⌉, ⌈M/64⌉) per chunk.
//   dx_simple   one invocation per dx element, 64 per workgroup, grid over M·K (grid_index). The reference variant.
//   dx_rows     for a CPU adapter (SwiftShader), as matmul v2: one invocation per pair of columns (2p, 2p+1) and
//               block of 8 rows, each weight word read once for 16 outputs, no workgroup memory or barriers;
//               64 per workgroup, grid over ⌈M/8⌉·K/2 (grid_index, pairs fastest). 1.4–2× faster than dx_tiled there at M = 320…1024.
//   lora_db     one invocation per (n, r), grid over N·R, loops over m.
//   lora_du     one invocation per (m, r), grid over M·R, loops over n.
//   lora_da     one invocation per (r, k), grid over R·K, loops over m.
//   lora_dx     one invocation per (m, k), grid over M·K, loops over r.
// Every output element is owned by one invocation: no atomics, and the results do not depend on scheduling.
//
// Numerics: dx_tiled, dx_simple and dx_rows all accumulate acc = fma(dy[m, n0+n], W[n, k], acc) for n = 0, 1, …, N−1 of the
// chunk in that order, from 0, then add acc to dx (or write it): they give the same bits. The LoRA sums are plain
// f32 loops in index order, multiplied by `scale` once at the end (dB, du).

const BM: u32 = 64u; // rows m per tile
const BK: u32 = 64u; // columns k per tile
const BN: u32 = 16u; // reduction step over n
const TM: u32 = 4u;
const TK: u32 = 4u;

@group(0) @binding(0) var<uniform> params: MatmulBackwardParams;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read> w: array<u32>;
@group(0) @binding(3) var<storage, read_write> dx: array<f32>;
@group(0) @binding(4) var<storage, read> x: array<f32>;
@group(0) @binding(5) var<storage, read> lora_u: array<f32>;
@group(0) @binding(6) var<storage, read> lora_a: array<f32>;
@group(0) @binding(7) var<storage, read> lora_b: array<f32>;
@group(0) @binding(8) var<storage, read_write> da: array<f32>;
@group(0) @binding(9) var<storage, read_write> db: array<f32>;
@group(0) @binding(10) var<storage, read_write> du: array<f32>;

// Writes or adds a finished chunk sum.
fn store_dx(i: u32, acc: f32) {
  if (params.accumulate != 0u) {
    dx[i] = dx[i] + acc;
  } else {
    dx[i] = acc;
  }
}

@compute @workgroup_size(64)
fn dx_simple(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) li: u32) {
  let idx = grid_index(wid, nwg) * 64u + li;
  if (idx >= params.M * params.K) {
    return;
  }
  let m = idx / params.K;
  let k = idx % params.K;
  let p = k / 2u;
  let odd = k % 2u == 1u;
  var acc = 0.0;
  for (var n = 0u; n < params.N; n = n + 1u) {
    let wv = w_pair(n, p);
    acc = fma(dy[m * params.ldy + params.n0 + n], select(wv.x, wv.y, odd), acc);
  }
  store_dx(idx, acc);
}

const RB: u32 = 8u; // rows m per invocation of dx_rows

@compute @workgroup_size(64)
fn dx_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) li: u32) {
  let half_k = params.K / 2u;
  let idx = grid_index(wid, nwg) * 64u + li;
  if (idx >= half_k * ((params.M + RB - 1u) / RB)) {
    return;
  }
  let p = idx % half_k;
  let m0 = (idx / half_k) * RB;
  let rows = min(RB, params.M - m0);
  var acc: array<vec2<f32>, RB>;
  for (var n = 0u; n < params.N; n = n + 1u) {
    let wv = w_pair(n, p);
    for (var i = 0u; i < rows; i = i + 1u) {
      let g = dy[(m0 + i) * params.ldy + params.n0 + n];
      acc[i] = vec2<f32>(fma(g, wv.x, acc[i].x), fma(g, wv.y, acc[i].y));
    }
  }
  for (var i = 0u; i < rows; i = i + 1u) {
    let o = (m0 + i) * params.K + 2u * p;
    store_dx(o, acc[i].x);
    store_dx(o + 1u, acc[i].y);
  }
}

var<workgroup> gs: array<f32, 1024>; // [BN][BM]: gs[n * BM + m] = dy[m0 + m, n0 + nb + n]
var<workgroup> ws: array<f32, 1024>; // [BN][BK]: ws[n * BK + k] = W[nb + n, k0 + k]

@compute @workgroup_size(16, 16)
fn dx_tiled(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
            @builtin(local_invocation_index) li: u32) {
  let m0 = wid.y * BM;
  let k0 = wid.x * BK;
  let half_k = params.K / 2u;
  var acc: array<f32, 16>;
  for (var nb = 0u; nb < params.N; nb = nb + BN) {
    // dy tile: 64 rows × 16 columns, 4 values per invocation, consecutive invocations along n.
    for (var i = 0u; i < 4u; i = i + 1u) {
      let idx = li + 256u * i;
      let m = idx / BN;
      let n = idx % BN;
      var v = 0.0;
      if (m0 + m < params.M && nb + n < params.N) {
        v = dy[(m0 + m) * params.ldy + params.n0 + nb + n];
      }
      gs[n * BM + m] = v;
    }
    // W tile: 16 rows × 32 words (64 values), 2 words per invocation, consecutive invocations along the row.
    for (var i = 0u; i < 2u; i = i + 1u) {
      let idx = li + 256u * i;
      let n = idx / (BK / 2u);
      let p = idx % (BK / 2u);
      var v = vec2<f32>(0.0, 0.0);
      if (nb + n < params.N && k0 / 2u + p < half_k) {
        v = w_pair(nb + n, k0 / 2u + p);
      }
      ws[n * BK + 2u * p] = v.x;
      ws[n * BK + 2u * p + 1u] = v.y;
    }
    workgroupBarrier();
    for (var n = 0u; n < BN; n = n + 1u) {
      var a: array<f32, 4>;
      var b: array<f32, 4>;
      for (var i = 0u; i < TM; i = i + 1u) {
        a[i] = gs[n * BM + lid.y * TM + i];
      }
      for (var j = 0u; j < TK; j = j + 1u) {
        b[j] = ws[n * BK + lid.x * TK + j];
      }
      for (var i = 0u; i < TM; i = i + 1u) {
        for (var j = 0u; j < TK; j = j + 1u) {
          acc[i * TK + j] = fma(a[i], b[j], acc[i * TK + j]);
        }
      }
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < TM; i = i + 1u) {
    let m = m0 + lid.y * TM + i;
    for (var j = 0u; j < TK; j = j + 1u) {
      let k = k0 + lid.x * TK + j;
      if (m < params.M && k < params.K) {
        store_dx(m * params.K + k, acc[i * TK + j]);
      }
    }
  }
}

@compute @workgroup_size(64)
fn lora_db(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) li: u32) {
  let idx = grid_index(wid, nwg) * 64u + li;
  if (idx >= params.N * params.rank) {
    return;
  }
  let n = idx / params.rank;
  let r = idx % params.rank;
  var acc = 0.0;
  for (var m = 0u; m < params.M; m = m + 1u) {
    acc = fma(dy[m * params.ldy + n], lora_u[m * params.rank + r], acc);
  }
  db[idx] = db[idx] + params.scale * acc;
}

@compute @workgroup_size(64)
fn lora_du(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) li: u32) {
  let idx = grid_index(wid, nwg) * 64u + li;
  if (idx >= params.M * params.rank) {
    return;
  }
  let m = idx / params.rank;
  let r = idx % params.rank;
  var acc = 0.0;
  for (var n = 0u; n < params.N; n = n + 1u) {
    acc = fma(dy[m * params.ldy + n], lora_b[n * params.rank + r], acc);
  }
  du[idx] = params.scale * acc;
}

@compute @workgroup_size(64)
fn lora_da(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) li: u32) {
  let idx = grid_index(wid, nwg) * 64u + li;
  if (idx >= params.rank * params.K) {
    return;
  }
  let r = idx / params.K;
  let k = idx % params.K;
  var acc = 0.0;
  for (var m = 0u; m < params.M; m = m + 1u) {
    acc = fma(du[m * params.rank + r], x[m * params.K + k], acc);
  }
  da[idx] = da[idx] + acc;
}

@compute @workgroup_size(64)
fn lora_dx(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) li: u32) {
  let idx = grid_index(wid, nwg) * 64u + li;
  if (idx >= params.M * params.K) {
    return;
  }
  let m = idx / params.K;
  let k = idx % params.K;
  var acc = 0.0;
  for (var r = 0u; r < params.rank; r = r + 1u) {
    acc = fma(du[m * params.rank + r], lora_a[r * params.K + k], acc);
  }
  dx[idx] = dx[idx] + acc;
}
