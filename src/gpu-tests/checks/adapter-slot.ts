/**
 * One inference engine for every adapter (src/workers/adapter-slot.ts): a rank-2 adapter on two projections, padded
 * to a wider plan (rank 4, three projections) and loaded with its own scale, must give the logits of an engine
 * planned exactly for it, bit for bit (padding adds only zero terms); and those logits must differ from the base's,
 * so the equality is not the base's by accident.
 */
import { createRng } from '../../data/rng.ts';
import type { GpuContext } from '../../gpu/device.ts';
import { QwenEngine } from '../../gpu/engine/qwen-engine.ts';
import { createLoraAdapter, DEFAULT_LORA_CONFIG, loraScale, type LoraAdapter } from '../../model/lora.ts';
import { randomModelWeights, tinyModelConfig } from '../../model/tiny-model.ts';
import { padAdapter, widenPlan, type LoraPlan } from '../../workers/adapter-slot.ts';
import { compare, compareExact, type Comparison } from '../compare.ts';

export async function checkAdapterSlot(ctx: GpuContext, seed: number): Promise<Comparison[]> {
  const config = tinyModelConfig();
  const tensors = randomModelWeights(config, createRng(seed));
  const small: LoraAdapter = createLoraAdapter(config, { ...DEFAULT_LORA_CONFIG, rank: 2, alpha: 6, targetModules: ['q_proj', 'down_proj'] }, createRng(seed + 1), (r) => (r.next() * 2 - 1) * 0.3);
  const other = createLoraAdapter(config, { ...DEFAULT_LORA_CONFIG, rank: 4, alpha: 4, targetModules: ['v_proj'] }, createRng(seed + 2));
  const wide = widenPlan(widenPlan(null, small), other);
  const prompt = [1, 2, 3, 4, 5, 6, 7];
  const logitsOn = async (plan: LoraPlan, adapter: LoraAdapter | null): Promise<Float32Array> => {
    const engine = await QwenEngine.create(ctx, config, { batch: 1, context: 16, maxTokens: 16, lora: plan, weights: 'f16' });
    try {
      engine.loadWeights(tensors);
      if (adapter) engine.loadLora(padAdapter(config, adapter, plan).layers, loraScale(adapter.config));
      return await engine.step([{ slot: 0, ids: prompt }]);
    } finally {
      engine.destroy();
    }
  };
  const exact = await logitsOn({ rank: 2, targets: ['q_proj', 'down_proj'] }, small);
  const padded = await logitsOn(wide, small);
  const base = await logitsOn(wide, null);
  const shape = `plan R=${wide.rank} ${wide.targets.join('+')}, adapter R=2 q_proj+down_proj, T=${prompt.length}`;
  // The adapter must move the logits: a difference from the base above 1e-3 passes (compare's pass is inverted).
  const moved = compare('adapter changes the logits vs the base (max |Δ| > 1e-3)', shape, padded, base, { abs: 1e-3, rel: 0 });
  return [compareExact('padded adapter == adapter on its own plan', shape, padded, exact), { ...moved, pass: moved.maxAbs > 1e-3 }];
}
