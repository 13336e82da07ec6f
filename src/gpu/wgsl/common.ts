/**
 * WGSL helpers shared by several kernels. WGSL has no #include: a kernel's TS module passes the pieces it needs to
 * `composeWgsl(...)` explicitly, so each shader's full text is visible from its module.
 */

/**
 * Large 1-D dispatches are laid out on a 2-D grid (each dimension is limited to 65535 workgroups); `grid_index`
 * recovers the linear workgroup index. Pair with `grid1d()` on the TS side.
 */
export const WGSL_GRID = /* wgsl */ `
fn grid_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
`;

/**
 * The sum of every invocation's `s` over a workgroup of WG invocations, returned to all of them: WG strided partials
 * added pairwise in a fixed order (the kernel declares `const WG: u32` and `var<workgroup> partial: array<f32, WG>`).
 * The row variants of rmsnorm and attention replay this order, so their sums have the same bits. Holds barriers:
 * call it in uniform control flow. The last barrier lets every invocation read the total before `partial` is reused.
 */
export const WGSL_WORKGROUP_SUM = /* wgsl */ `
fn workgroup_sum(li: u32, s: f32) -> f32 {
  partial[li] = s;
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
    if (li < stride) {
      partial[li] = partial[li] + partial[li + stride];
    }
    workgroupBarrier();
  }
  let total = partial[0];
  workgroupBarrier();
  return total;
}
`;

/** Numerics shared by kernels. NEG_BIG stands in for -inf (WGSL lets implementations assume no infinities). */
export const WGSL_MATH = /* wgsl */ `
const NEG_BIG: f32 = -1.0e30;

// exp of a non-positive argument only, so no overflow for any finite x.
fn sigmoid(x: f32) -> f32 {
  let e = exp(-abs(x));
  return select(e / (1.0 + e), 1.0 / (1.0 + e), x >= 0.0);
}

fn silu(x: f32) -> f32 {
  return x * sigmoid(x);
}
`;

/** Workgroup count for `count` workgroups as a 2-D grid within `maxPerDim` per dimension (see WGSL_GRID). */
export function grid1d(count: number, maxPerDim = 65535): [number, number, number] {
  if (count <= maxPerDim) return [Math.max(1, count), 1, 1];
  const y = Math.ceil(count / maxPerDim);
  return [Math.ceil(count / y), y, 1];
}
