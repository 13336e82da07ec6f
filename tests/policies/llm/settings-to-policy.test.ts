/**
 * One settings → policy mapping, one set of sampling defaults, one context default. Expected values are written by
 * hand: Qwen3's recommended sampling (model card: 0.7 / 0.8 without thinking, 0.6 / 0.95 with it), the per-turn
 * limits (256 / 1,024), and the 2,048-token context (src/model/context.ts says why).
 *
 * The callers agree: the same settings, given as the page gives them (the Model panel's form, its Thinking checkbox)
 * and as `sqlenv eval` gives them (its flags), make policies that play their first turn with the same prompt and the
 * same sampling on the page's WebGPU engine service, its transformers.js service and the CLI's mapping. Before this
 * change the page's form kept the no-thinking values when Thinking was ticked (0.7, 0.8, 256) while the CLI's
 * `--thinking` played 0.6, 0.95, 1,024; and `LlmPolicy` and transformers.js fell back to 4,096 tokens of context
 * where the engine, the CLI and training used 2,048.
 */
import { dirname } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { qwenSettings } from '../../../src/cli/eval-command.ts';
import { createRng } from '../../../src/data/rng.ts';
import type { Dataset } from '../../../src/data/types.ts';
import type { Observation } from '../../../src/env/types.ts';
import { QWEN3_0_6B } from '../../../src/model/config.ts';
import { contextTokensFor, DEFAULT_CONTEXT_TOKENS } from '../../../src/model/context.ts';
import { loadTokenizerFolder, qwen3TokenizerJsonPath } from '../../../src/model/files-node.ts';
import type { Tokenizer } from '../../../src/model/tokenizer.ts';
import { createLlmPolicy, LlmPolicy, type Generate, type GenerateOptions, type LlmDecision, type LlmPlaySettings } from '../../../src/policies/llm/llm-policy.ts';
import { samplingDefaults, switchThinking } from '../../../src/policies/llm/sampling-defaults.ts';
import type { Policy } from '../../../src/policies/policy.ts';
import { PolicyRegistry } from '../../../src/policies/registry.ts';
import { DEFAULT_MODEL_SETTINGS } from '../../../src/ui/store/model-form.ts';
import { resolveLlmSettings, type LlmPolicySettings } from '../../../src/workers/llm-settings.ts';
import { LLM_POLICY, ModelService } from '../../../src/workers/services/model-service.ts';
import { TJS_POLICY, TjsModelService } from '../../../src/workers/services/tjs-model-service.ts';
import { countingExecutors, fakeLlm, tinyLookup, type CountingExecutors } from '../../workers/services/service-fixture.ts';

let tok: Tokenizer;
let executors: CountingExecutors;
let lookup: (name: string) => Promise<Dataset>;
let dataset: Dataset;

beforeAll(async () => {
  tok = await loadTokenizerFolder(dirname(qwen3TokenizerJsonPath()));
  executors = await countingExecutors();
  ({ dataset, lookup } = await tinyLookup());
});

interface Turn {
  prompt: string;
  options: Omit<GenerateOptions, 'onToken'>;
}

/** A `generate` that ends every reply at once and records what it was asked. */
function recording(turns: Turn[]): Generate {
  return async (promptIds, { onToken: _onToken, ...options }) => {
    turns.push({ prompt: tok.decode(promptIds), options });
    return { tokenIds: [tok.special.imEnd], text: '' };
  };
}

function observation(text: string): Observation {
  return { text, question: 'How many rows?', dbId: 'db', tables: ['t'], stepsLeft: 5 };
}

/** One first turn of `policy` on `text`, with the episode generator seeded `seed`. */
async function firstTurn(policy: Policy, text = 'How many rows are in t?', seed = 7): Promise<LlmDecision> {
  const first = observation(text);
  return (await policy.act({ first, history: [], observation: first, question: dataset.questions[0], rng: createRng(seed) })) as LlmDecision;
}

const sampling = (t: Turn) => ({ maxNewTokens: t.options.maxNewTokens, temperature: t.options.temperature, topP: t.options.topP });

describe('sampling defaults (one table)', () => {
  it("are Qwen3's recommendations, by thinking", () => {
    expect(samplingDefaults(false)).toEqual({ maxNewTokens: 256, temperature: 0.7, topP: 0.8 });
    expect(samplingDefaults(true)).toEqual({ maxNewTokens: 1024, temperature: 0.6, topP: 0.95 });
  });

  it('the page form, the settings check and LlmPolicy fill the same ones', async () => {
    expect(DEFAULT_MODEL_SETTINGS).toMatchObject({ thinking: false, maxNewTokens: 256, temperature: 0.7, topP: 0.8 });
    expect(resolveLlmSettings({ thinking: true })).toMatchObject({ maxNewTokens: 1024, temperature: 0.6, topP: 0.95 });
    const turns: Turn[] = [];
    await firstTurn(new LlmPolicy({ generate: recording(turns), tokenizer: tok, thinking: true }));
    await firstTurn(new LlmPolicy({ generate: recording(turns), tokenizer: tok }));
    expect(turns.map(sampling)).toEqual([
      { maxNewTokens: 1024, temperature: 0.6, topP: 0.95 },
      { maxNewTokens: 256, temperature: 0.7, topP: 0.8 },
    ]);
  });

  it("switchThinking moves the fields still at the old mode's default and keeps the ones a person changed", () => {
    const form = { ...DEFAULT_MODEL_SETTINGS, shots: 1 as const };
    expect(switchThinking(form, true)).toEqual({ ...form, thinking: true, maxNewTokens: 1024, temperature: 0.6, topP: 0.95 });
    expect(switchThinking({ ...form, temperature: 0.3 }, true)).toEqual({ ...form, thinking: true, maxNewTokens: 1024, temperature: 0.3, topP: 0.95 });
    expect(switchThinking({ ...form, thinking: true, maxNewTokens: 1024, temperature: 0.6, topP: 0.5 }, false)).toEqual({ ...form, thinking: false, maxNewTokens: 256, temperature: 0.7, topP: 0.5 });
    expect(switchThinking(form, false)).toEqual(form);
  });
});

describe('the context default (one constant)', () => {
  it('is 2,048 tokens, within the model', () => {
    expect(DEFAULT_CONTEXT_TOKENS).toBe(2048);
    expect(contextTokensFor(QWEN3_0_6B)).toBe(2048);
    expect(contextTokensFor(QWEN3_0_6B, 4096)).toBe(4096);
    expect(contextTokensFor(QWEN3_0_6B, 100_000)).toBe(40_960);
    expect(contextTokensFor({ maxPositionEmbeddings: 512 })).toBe(512);
  });

  it('is what LlmPolicy fits its prompt into when no context is given', async () => {
    // A first observation of ~2,800 tokens: over the 2,048-token context's prompt budget (2,048 − 256), under 4,096's.
    const long = 'rows '.repeat(2800);
    const fits = async (contextTokens?: number) => {
      const policy = new LlmPolicy({ generate: recording([]), tokenizer: tok, ...(contextTokens !== undefined && { contextTokens }) });
      const { stats } = await firstTurn(policy, long);
      expect(stats.promptTokens).toBeGreaterThan(2048 - 256);
      expect(stats.promptTokens).toBeLessThan(4096 - 256);
      return stats.promptFits;
    };
    expect(await fits(4096)).toBe(true);
    expect(await fits(2048)).toBe(false);
    expect(await fits()).toBe(false);
  });
});

describe('the settings → policy mapping (one function, every caller)', () => {
  it('createLlmPolicy plays the settings and carries what the backend brings', async () => {
    const turns: Turn[] = [];
    const settings: LlmPlaySettings = { thinking: false, maxNewTokens: 9, temperature: 0.3, topP: 0.5 };
    const policy = createLlmPolicy(settings, { generate: recording(turns), tokenizer: tok, contextTokens: 300, concurrency: 3 }, { shots: [], name: 'qwen+x' });
    expect([policy.name, policy.concurrency, policy.maxNewTokens]).toEqual(['qwen+x', 3, 9]);
    const { stats } = await firstTurn(policy, 'rows '.repeat(400));
    expect(sampling(turns[0])).toEqual({ maxNewTokens: 9, temperature: 0.3, topP: 0.5 });
    // The context reached the policy: 400 words do not fit 300 − 9 tokens.
    expect(stats.promptFits).toBe(false);
    // Thinking off: Qwen3's generation prompt closes an empty think block.
    expect(turns[0].prompt.endsWith('<|im_start|>assistant\n<think>\n\n</think>\n\n')).toBe(true);
  });

  /** The first turn of the policy each caller makes from `page` (the page's settings) and `cli` (sqlenv eval flags). */
  async function everyCaller(page: LlmPolicySettings, cli: Record<string, string | boolean>): Promise<Record<string, Turn>> {
    const turns: Record<string, Turn[]> = { engine: [], tjs: [], cli: [] };
    const base = fakeLlm('m');
    const contextTokens = contextTokensFor(QWEN3_0_6B);

    const policies = new PolicyRegistry();
    const engine = new ModelService({
      policies,
      dataset: lookup,
      createExecutor: executors.create,
      loadLlm: async () => ({ ...base, tokenizer: tok, generate: recording(turns.engine), contextTokens, slots: 2 }),
    });
    await engine.loadModel({ kind: 'url', url: 'm' }, page);
    await firstTurn(policies.create(LLM_POLICY));

    const tjs = new TjsModelService({
      policies,
      dataset: lookup,
      createExecutor: executors.create,
      loadTjs: async () => ({ label: 'm', config: base.config, tokenizer: tok, device: 'wasm', dtype: 'q4', contextTokens, generate: recording(turns.tjs), destroy: () => undefined }),
    });
    await tjs.loadTjsModel({ source: { kind: 'url', url: 'm' }, dtype: 'auto', device: 'wasm', settings: page });
    await firstTurn(policies.create(TJS_POLICY));

    // sqlenv eval: flags → settings (eval-command.ts), then the mapping as qwen-policy.ts calls it.
    await firstTurn(createLlmPolicy(qwenSettings(cli), { generate: recording(turns.cli), tokenizer: tok, contextTokens, concurrency: 2 }, { shots: [], name: 'qwen' }));
    return { engine: turns.engine[0], tjs: turns.tjs[0], cli: turns.cli[0] };
  }

  it('Thinking ticked on the page plays as `sqlenv eval --thinking`, on both page backends', async () => {
    const form = switchThinking(DEFAULT_MODEL_SETTINGS, true); // what the Model panel's checkbox sends
    const t = await everyCaller({ ...form, shotDataset: dataset.name }, { thinking: true, quant: form.weights });
    for (const who of ['engine', 'tjs', 'cli']) expect(sampling(t[who]), who).toEqual({ maxNewTokens: 1024, temperature: 0.6, topP: 0.95 });
    expect(t.engine.prompt.endsWith('<|im_start|>assistant\n')).toBe(true);
    expect(t.tjs).toEqual(t.engine);
    expect(t.cli).toEqual(t.engine);
  });

  it('explicit values agree too', async () => {
    const form = { ...DEFAULT_MODEL_SETTINGS, temperature: 0.25, topP: 0.6, maxNewTokens: 40 };
    const t = await everyCaller({ ...form, shotDataset: dataset.name }, { temperature: '0.25', 'top-p': '0.6', 'max-new-tokens': '40' });
    for (const who of ['engine', 'tjs', 'cli']) expect(sampling(t[who]), who).toEqual({ maxNewTokens: 40, temperature: 0.25, topP: 0.6 });
    expect(t.tjs).toEqual(t.engine);
    expect(t.cli).toEqual(t.engine);
  });
});
