/**
 * One inference engine, many adapters: the engine is planned with ONE LoRA shape (rank R, targets) and every adapter
 * played on it is padded to that shape. Padding is exact: A (r, in) gains zero rows and B (out, r) zero columns, so
 * scale·(x·Aᵀ)·Bᵀ is unchanged when the padded adapter is loaded with the ORIGINAL adapter's scale; a target the
 * adapter lacks gets zero A and B. The plan only grows (the largest rank and the union of targets seen), so switching
 * between adapters re-plans the engine at most a few times.
 *
 * Pure TypeScript, so Node tests check the padding with the float64 reference.
 */
import type { ModelConfig } from '../model/config.ts';
import { LORA_TARGETS, loraScale, loraShapes, type LoraAdapter, type LoraTarget } from '../model/lora.ts';

/** The LoRA shape an engine is planned with (memory-plan.ts `PlanOptions.lora`). */
export interface LoraPlan {
  rank: number;
  targets: LoraTarget[];
}

/** Whether an engine planned with `plan` can play `adapter` (padded). */
export function planCovers(plan: LoraPlan | null, adapter: LoraAdapter): boolean {
  return plan !== null && adapter.config.rank <= plan.rank && adapter.config.targetModules.every((t) => plan.targets.includes(t));
}

/** The smallest plan covering both `plan` and `adapter`; targets in LORA_TARGETS order. */
export function widenPlan(plan: LoraPlan | null, adapter: LoraAdapter): LoraPlan {
  const targets = new Set<LoraTarget>([...(plan?.targets ?? []), ...adapter.config.targetModules]);
  return { rank: Math.max(plan?.rank ?? 0, adapter.config.rank), targets: LORA_TARGETS.filter((t) => targets.has(t)) };
}

/**
 * `adapter` in the plan's shape (f32), with a config whose scale is the original's (alpha chosen so that
 * alpha / R = the original scale), so the padded adapter computes exactly what the original does.
 */
export function padAdapter(model: ModelConfig, adapter: LoraAdapter, plan: LoraPlan): LoraAdapter {
  if (!planCovers(plan, adapter)) throw new RangeError(`padAdapter: a rank-${plan.rank} plan on ${plan.targets.join(', ')} cannot hold a rank-${adapter.config.rank} adapter on ${adapter.config.targetModules.join(', ')}`);
  const r = adapter.config.rank;
  const R = plan.rank;
  const config = { ...adapter.config, rank: R, alpha: loraScale(adapter.config) * R, useRslora: false, targetModules: [...plan.targets] };
  const layers = adapter.layers.map((layer) => {
    const out: LoraAdapter['layers'][number] = {};
    for (const t of plan.targets) {
      const s = loraShapes(model, config, t);
      const a = new Float32Array(s.a[0] * s.a[1]);
      const b = new Float32Array(s.b[0] * s.b[1]);
      const pair = layer[t];
      if (pair !== undefined) {
        a.set(pair.a.data); // rows 0..r−1 of (R, in)
        const rows = s.b[0];
        for (let o = 0; o < rows; o++) for (let j = 0; j < r; j++) b[o * R + j] = pair.b.data[o * r + j];
      }
      out[t] = { a: { shape: s.a, data: a }, b: { shape: s.b, data: b } };
    }
    return out;
  });
  return { config, layers };
}
