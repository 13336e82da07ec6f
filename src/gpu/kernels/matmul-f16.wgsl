// matmul_v2h — matmul_v2 with f16 arithmetic, for f16-stored weights on devices with `shader-f16`. Composed after
// matmul.wgsl (same bindings, params and epilogue) behind `enable f16;`, only where the feature was granted
// (matmul.ts), and only chosen when a caller names it: no adapter here has the feature, so it is compiled and checked
// only on real GPUs (src/gpu-tests/checks/matmul.ts, at a tolerance for f16 products).
//
//   out[m, n0 + n] = Σ_p f32(dot(f16(x[m, 2p..2p+1]), W[n, 2p..2p+1]))  (+ bias)  (+ LoRA)
//
// Each weight word is reinterpreted as vec2<f16> (no unpack), each x pair rounded to f16, the pair's dot product taken
// in f16 and accumulated in f32. Workgroup and grid as matmul_v2: 64 columns per workgroup, up to GM = 8 rows.
// Numerics: x rounded to f16 (relative 2^-11) and one f16 rounding per pair product: the result differs from the f32
// variants by about 2^-11 of Σ|x·w|, not in bits.

@compute @workgroup_size(64)
fn matmul_v2h(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let n = wid.x * 64u + li;
  let m0 = wid.y * GM;
  if (n >= params.N) {
    return;
  }
  let rows = min(GM, params.M - m0);
  let half_k = params.K / 2u;
  var acc: array<f32, GM>;
  for (var p = 0u; p < half_k; p = p + 1u) {
    let wv = bitcast<vec2<f16>>(w[n * half_k + p]);
    for (var i = 0u; i < rows; i = i + 1u) {
      let xo = (m0 + i) * params.ldx + 2u * p;
      acc[i] = acc[i] + f32(dot(vec2<f16>(f16(x[xo]), f16(x[xo + 1u])), wv));
    }
  }
  for (var i = 0u; i < rows; i = i + 1u) {
    out[(m0 + i) * params.ldo + params.n0 + n] = epilogue(m0 + i, n, acc[i]);
  }
}
