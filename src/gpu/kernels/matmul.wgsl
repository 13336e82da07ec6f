// matmul — a linear layer with packed weights (f16, or q8/q4 groups dequantised here) and a live LoRA branch:
//
//   out[m, n0 + n] = Σ_k x[m, k] · W[n, k]  (+ bias[n0 + n])  (+ lora_scale · Σ_r u[m, r] · B[n0 + n, r])
//   u[m, r]        = Σ_k x[m, k] · A[r, k]                       (entry lora_down, dispatched first)
//
// for m < M, n < N. W is one row-chunk (N rows) of a weight (N_total, K) in Hugging Face Linear layout, stored as
// f16 pairs: word W2[n, p] holds W[n, 2p] (low half) and W[n, 2p+1] (high half); K is even. A weight larger than
// one binding is split into row chunks, one dispatch each, with n0 the chunk's first row (split.ts).
// The weight is read only through w_pair(n, p) -> (W[n, 2p], W[n, 2p+1]) in f32, a function composed in front of
// this source by matmul.ts for the weight's format (quant.ts: unpack2x16float for f16; code · scale for q8/q4, the
// group's f32 scale stored at the end of the row). So every variant exists per format, with the same arithmetic.
// The LoRA term is added after the base sum and the bias, so with B = 0 it adds exactly +0.0 and the output equals
// the base output bit for bit. A (R, K) and B (N_total, R) are f32 (the trainable master copy).
//
// Bindings (group 0), struct MatmulParams is generated from MATMUL_PARAMS in matmul.ts; matmul-common.wgsl, composed
// in front of this source, declares all but x, lora_a and u_out, and holds GM and the epilogue:
//   0 params  uniform  MatmulParams { M, N, K, ldx, ldo, n0, has_bias, rank, lora_scale }
//   1 x       read     f32 (M, ldx), the first K columns used
//   2 w       read     u32 (N, row words) packed f16 (K/2 words), or q8 (K/4 + K/32), or q4 (K/8 + K/32)
//   3 bias    read     f32 (N_total)                 (a dummy when has_bias = 0)
//   4 lora_u  read     f32 (M, R)                    (a dummy when rank = 0)
//   5 lora_b  read     f32 (N_total, R)              (a dummy when rank = 0)
//   6 out     rw       f32 (M, ldo), columns n0 .. n0+N written
//   7 lora_a  read     f32 (R, K)                    (lora_down only)
//   8 u_out   rw       f32 (M, R)                    (lora_down only)
//
// Entry points and workgroups:
//   matmul_v0   the simple version: one invocation per output, 64 per workgroup, grid over M·N (grid_index).
//   matmul_v1   tiled: workgroup (16, 16) computes a 64×64 tile of out, 4×4 per invocation; K in steps of 16
//               through workgroup memory (x tile 64×16, W tile 64×16 unpacked to f32). Dispatch (⌈N/64⌉, ⌈M/64⌉).
//   matmul_v2   for few rows (decode, the LM head): one invocation per output column n, computing up to 8 rows
//               with each weight word read once (so B sequences cost one pass over W); 64 per workgroup.
//               Dispatch (⌈N/64⌉, ⌈M/8⌉). Where K and ldx are multiples of 4 and x's offset of 16 bytes, matmul.ts
//               records matmul_v2_x4 (matmul-x4.wgsl) instead: the same work and bits, x read as vec4 (v2's GPU
//               time −⅓ on SwiftShader).
//   lora_down   one invocation per (m, r), 64 per workgroup, grid over M·R.
//   matmul_v3   (matmul-subgroups.wgsl, devices with `subgroups`) decode with K split over 64 invocations and
//               subgroup sums; matmul_v2h (matmul-f16.wgsl, devices with `shader-f16`, f16 weights) f16 products.
//               Both are composed after this source and use its bindings and matmul-common's GM and epilogue.
//
// Numerics: every variant accumulates acc = fma(x[m,k], W[n,k], acc) for k = 0, 1, …, K−1 in that order, from 0,
// (W[n,k] already dequantised to f32, exactly as quant.ts decodeWeight computes it),
// so v0, v1 and v2 give the same bits and a row's result does not depend on which other rows share the dispatch
// (batched decode equals single-sequence decode). Backward entries (dx = dy·W + scale·(dy·B)·A, dA, dB) will join.

const BM: u32 = 64u;
const BN: u32 = 64u;
const BK: u32 = 16u;
const TM: u32 = 4u;
const TN: u32 = 4u;

@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(7) var<storage, read> lora_a: array<f32>;
@group(0) @binding(8) var<storage, read_write> u_out: array<f32>;

@compute @workgroup_size(64)
fn matmul_v0(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) li: u32) {
  let idx = grid_index(wid, nwg) * 64u + li;
  if (idx >= params.M * params.N) {
    return;
  }
  let m = idx / params.N;
  let n = idx % params.N;
  let half_k = params.K / 2u;
  var acc = 0.0;
  for (var p = 0u; p < half_k; p = p + 1u) {
    let wv = w_pair(n, p);
    acc = fma(x[m * params.ldx + 2u * p], wv.x, acc);
    acc = fma(x[m * params.ldx + 2u * p + 1u], wv.y, acc);
  }
  out[m * params.ldo + params.n0 + n] = epilogue(m, n, acc);
}

@compute @workgroup_size(64)
fn matmul_v2(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let n = wid.x * 64u + li;
  let m0 = wid.y * GM;
  if (n >= params.N) {
    return;
  }
  let rows = min(GM, params.M - m0);
  let half_k = params.K / 2u;
  var acc: array<f32, GM>;
  for (var p = 0u; p < half_k; p = p + 1u) {
    let wv = w_pair(n, p);
    for (var i = 0u; i < rows; i = i + 1u) {
      let xo = (m0 + i) * params.ldx + 2u * p;
      acc[i] = fma(x[xo], wv.x, acc[i]);
      acc[i] = fma(x[xo + 1u], wv.y, acc[i]);
    }
  }
  for (var i = 0u; i < rows; i = i + 1u) {
    out[(m0 + i) * params.ldo + params.n0 + n] = epilogue(m0 + i, n, acc[i]);
  }
}

var<workgroup> xs: array<f32, 1024>; // [BK][BM]: xs[k * BM + m]
var<workgroup> ws: array<f32, 1024>; // [BK][BN]: ws[k * BN + n]

@compute @workgroup_size(16, 16)
fn matmul_v1(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
             @builtin(local_invocation_index) li: u32) {
  let m0 = wid.y * BM;
  let nt = wid.x * BN; // first row of this tile within the chunk
  let half_k = params.K / 2u;
  var acc: array<f32, 16>;
  for (var k0 = 0u; k0 < params.K; k0 = k0 + BK) {
    // x tile: 64 rows × 16 columns, 4 values per invocation, consecutive invocations along k.
    for (var i = 0u; i < 4u; i = i + 1u) {
      let idx = li + 256u * i;
      let m = idx / BK;
      let k = idx % BK;
      var v = 0.0;
      if (m0 + m < params.M && k0 + k < params.K) {
        v = x[(m0 + m) * params.ldx + k0 + k];
      }
      xs[k * BM + m] = v;
    }
    // W tile: 64 rows × 8 words (16 f16), 2 words per invocation.
    for (var i = 0u; i < 2u; i = i + 1u) {
      let idx = li + 256u * i;
      let n = idx / (BK / 2u);
      let p = idx % (BK / 2u);
      var v = vec2<f32>(0.0, 0.0);
      if (nt + n < params.N && k0 / 2u + p < half_k) {
        v = w_pair(nt + n, k0 / 2u + p);
      }
      ws[(2u * p) * BN + n] = v.x;
      ws[(2u * p + 1u) * BN + n] = v.y;
    }
    workgroupBarrier();
    for (var k = 0u; k < BK; k = k + 1u) {
      var a: array<f32, 4>;
      var b: array<f32, 4>;
      for (var i = 0u; i < TM; i = i + 1u) {
        a[i] = xs[k * BM + lid.y * TM + i];
      }
      for (var j = 0u; j < TN; j = j + 1u) {
        b[j] = ws[k * BN + lid.x * TN + j];
      }
      for (var i = 0u; i < TM; i = i + 1u) {
        for (var j = 0u; j < TN; j = j + 1u) {
          acc[i * TN + j] = fma(a[i], b[j], acc[i * TN + j]);
        }
      }
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < TM; i = i + 1u) {
    let m = m0 + lid.y * TM + i;
    for (var j = 0u; j < TN; j = j + 1u) {
      let n = nt + lid.x * TN + j;
      if (m < params.M && n < params.N) {
        out[m * params.ldo + params.n0 + n] = epilogue(m, n, acc[i * TN + j]);
      }
    }
  }
}

@compute @workgroup_size(64)
fn lora_down(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) li: u32) {
  let idx = grid_index(wid, nwg) * 64u + li;
  if (idx >= params.M * params.rank) {
    return;
  }
  let m = idx / params.rank;
  let r = idx % params.rank;
  var acc = 0.0;
  for (var k = 0u; k < params.K; k = k + 1u) {
    acc = acc + x[m * params.ldx + k] * lora_a[r * params.K + k];
  }
  u_out[m * params.rank + r] = acc;
}
