/**
 * The seven projections of a decoder layer, spelled and shaped in one place (src/model/weights.ts) and read by
 * everyone who needs them: the checkpoint check, LoRA, the training defaults and the GPU memory plan. Expected values
 * are written by hand from Qwen3-0.6B's config.json (hidden 1,024, MLP 3,072, 16 query heads, 8 key/value heads of
 * 128) and Hugging Face's module names (`model.layers.{i}.self_attn.q_proj`, `….mlp.down_proj`).
 */
import { describe, expect, it } from 'vitest';
import { planMemory } from '../../src/gpu/memory-plan.ts';
import { QWEN3_0_6B } from '../../src/model/config.ts';
import { DEFAULT_LORA_CONFIG } from '../../src/model/lora.ts';
import { expectedTensors, PROJECTIONS, projectionPrefix, projectionShape, type Projection } from '../../src/model/weights.ts';
import { DEFAULT_TRAIN_CONFIG } from '../../src/train/types.ts';

const HF_ORDER = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'];

/** (out, in) of each projection of Qwen3-0.6B: q 16·128, k/v 8·128, MLP 3,072, hidden 1,024. */
const QWEN3_SHAPES: Record<Projection, [number, number]> = {
  q_proj: [2048, 1024],
  k_proj: [1024, 1024],
  v_proj: [1024, 1024],
  o_proj: [1024, 2048],
  gate_proj: [3072, 1024],
  up_proj: [3072, 1024],
  down_proj: [1024, 3072],
};

/** The projections Hugging Face keeps under `mlp` (the rest are under `self_attn`). */
const MLP: readonly string[] = ['gate_proj', 'up_proj', 'down_proj'];

describe('the projections, in one place', () => {
  it("lists Hugging Face's seven projection names in a layer's order", () => {
    expect([...PROJECTIONS]).toEqual(HF_ORDER);
  });

  it("gives each projection's (out, in) shape", () => {
    for (const p of PROJECTIONS) expect(projectionShape(QWEN3_0_6B, p), p).toEqual(QWEN3_SHAPES[p]);
  });

  it('names each projection under its module', () => {
    expect(projectionPrefix(0, 'q_proj')).toBe('model.layers.0.self_attn.q_proj');
    expect(projectionPrefix(3, 'o_proj')).toBe('model.layers.3.self_attn.o_proj');
    expect(projectionPrefix(27, 'up_proj')).toBe('model.layers.27.mlp.up_proj');
    expect(projectionPrefix(1, 'down_proj')).toBe('model.layers.1.mlp.down_proj');
  });

  it('the checkpoint check and the GPU memory plan ask for the same weight shapes', () => {
    const checkpoint = new Map(expectedTensors(QWEN3_0_6B).map((t) => [t.name, t.shape]));
    const plan = planMemory(QWEN3_0_6B, { batch: 1, context: 16, lora: { rank: 4, targets: PROJECTIONS } });
    for (const layer of [0, 27]) {
      for (const p of PROJECTIONS) {
        const name = `model.layers.${layer}.${MLP.includes(p) ? 'mlp' : 'self_attn'}.${p}`;
        const [out, inp] = QWEN3_SHAPES[p];
        expect(checkpoint.get(`${name}.weight`), name).toEqual([out, inp]);
        const entry = (suffix: string) => plan.entries.find((e) => e.name === `${name}.${suffix}`)?.shape;
        expect(entry('weight'), name).toEqual([out, inp]);
        // LoRA: A (R, in), B (out, R).
        expect(entry('lora_A'), name).toEqual([4, inp]);
        expect(entry('lora_B'), name).toEqual([out, 4]);
      }
    }
  });

  it('LoRA and training target all seven by default', () => {
    expect(DEFAULT_LORA_CONFIG.targetModules).toEqual(HF_ORDER);
    expect(DEFAULT_TRAIN_CONFIG.loraTargets).toEqual(HF_ORDER);
  });
});
