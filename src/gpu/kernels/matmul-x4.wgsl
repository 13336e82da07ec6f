// matmul_v2_x4 — matmul_v2 reading x four values at a time (one vec4<f32> load where v2 makes four f32 loads), for
// K and the row stride ldx multiples of 4 and x bound at a multiple of 16 bytes (matmul.ts `v2ReadsQuads`: every
// row then starts on a vec4 boundary). Composed after matmul-common.wgsl in a module of its own, as x is bound here as
// array<vec4<f32>>. The weight is read through w_pair, two pairs per quad, so every format has it. Workgroup and grid
// as matmul_v2.
//
// Why: on a CPU adapter (SwiftShader) every storage load of an invocation is a gathered, bounds-checked access, and
// v2's loads of x, not its arithmetic, set its speed: the vector loads cut its GPU time by a third on the reads
// check's GRPO step (docs/benchmarks.md; `npm run bench:train` prints v2 both ways at its square sizes).
//
// Numerics: the same fma chain as v2 — acc = fma(x[m,k], W[n,k], acc) for k = 0, 1, …, K−1 in that order, from 0 —
// so it gives v2's bits (the matmul check compares them).

@group(0) @binding(1) var<storage, read> x4: array<vec4<f32>>;

@compute @workgroup_size(64)
fn matmul_v2_x4(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let n = wid.x * 64u + li;
  let m0 = wid.y * GM;
  if (n >= params.N) {
    return;
  }
  let rows = min(GM, params.M - m0);
  let quads = params.K / 4u;
  let ld4 = params.ldx / 4u;
  var acc: array<f32, GM>;
  for (var q = 0u; q < quads; q = q + 1u) {
    let lo = w_pair(n, 2u * q);
    let hi = w_pair(n, 2u * q + 1u);
    for (var i = 0u; i < rows; i = i + 1u) {
      let xv = x4[(m0 + i) * ld4 + q];
      var a = fma(xv.x, lo.x, acc[i]);
      a = fma(xv.y, lo.y, a);
      a = fma(xv.z, hi.x, a);
      acc[i] = fma(xv.w, hi.y, a);
    }
  }
  for (var i = 0u; i < rows; i = i + 1u) {
    out[(m0 + i) * params.ldo + params.n0 + n] = epilogue(m0 + i, n, acc[i]);
  }
}
