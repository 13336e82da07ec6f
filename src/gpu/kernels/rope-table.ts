/**
 * The RoPE table: for positions p < P and i < D/2, (cos a, sin a) with a = p · theta^(−2i/D), computed in float64
 * and stored as f32 pairs (P, D/2, 2). Pure TS (tested in Node); the memory plan lists it as a tensor.
 */
export function buildRopeTable(D: number, theta: number, P: number): Float32Array {
  const half = D / 2;
  const table = new Float32Array(P * half * 2);
  for (let i = 0; i < half; i++) {
    const invFreq = Math.pow(theta, (-2 * i) / D);
    for (let p = 0; p < P; p++) {
      const a = p * invFreq;
      table[(p * half + i) * 2] = Math.cos(a);
      table[(p * half + i) * 2 + 1] = Math.sin(a);
    }
  }
  return table;
}
