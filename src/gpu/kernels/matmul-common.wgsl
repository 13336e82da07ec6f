// matmul's shared part, composed in front of each of its modules by matmul.ts: the bindings every matmul entry point
// reads the same way (x is declared by each module: f32 in matmul.wgsl, vec4<f32> in matmul-x4.wgsl), the rows per
// invocation of the v2 family, and the epilogue. Bindings and numerics: matmul.wgsl's header.

@group(0) @binding(0) var<uniform> params: MatmulParams;
@group(0) @binding(2) var<storage, read> w: array<u32>;
@group(0) @binding(3) var<storage, read> bias: array<f32>;
@group(0) @binding(4) var<storage, read> lora_u: array<f32>;
@group(0) @binding(5) var<storage, read> lora_b: array<f32>;
@group(0) @binding(6) var<storage, read_write> out: array<f32>;

const GM: u32 = 8u; // rows per invocation in matmul_v2, matmul_v2_x4, matmul_v2h

// Bias and LoRA, added to a finished base sum in that order.
fn epilogue(m: u32, n: u32, base: f32) -> f32 {
  var v = base;
  let gn = params.n0 + n;
  if (params.has_bias != 0u) {
    v = v + bias[gn];
  }
  if (params.rank != 0u) {
    var l = 0.0;
    for (var r = 0u; r < params.rank; r = r + 1u) {
      l = l + lora_u[m * params.rank + r] * lora_b[gn * params.rank + r];
    }
    v = v + params.lora_scale * l;
  }
  return v;
}
