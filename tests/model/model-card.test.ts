/**
 * The model card written with every PEFT adapter (src/model/model-card.ts, through writePeftAdapter, which both the
 * page's download and `sqlenv train` use): `library_name: peft` always, `base_model` the Hub id exactly when the base
 * model's label tells it, and adapter_config.json's base_model_name_or_path that Hub id rather than a local path.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/data/rng.ts';
import { ADAPTER_CONFIG_FILE, writePeftAdapter } from '../../src/model/adapter-file.ts';
import { createLoraAdapter, type LoraConfig } from '../../src/model/lora.ts';
import { hubIdOfModelLabel, MODEL_CARD_FILE, peftModelCard } from '../../src/model/model-card.ts';
import { tinyModelConfig } from '../../src/model/tiny-model.ts';

const MODEL = tinyModelConfig({ vocabSize: 300 });

function baseModelOf(configJson: string): unknown {
  return (JSON.parse(configJson) as { base_model_name_or_path?: unknown }).base_model_name_or_path;
}
const LORA: LoraConfig = { rank: 4, alpha: 8, targetModules: ['q_proj', 'v_proj'], dropout: 0, useRslora: false };

/** The card's YAML front matter as lines (between the first two `---` lines). */
function frontMatter(card: string): string[] {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(card);
  if (!match) throw new Error(`no front matter in:\n${card}`);
  return match[1].split('\n');
}

describe('hubIdOfModelLabel', () => {
  it.each([
    ['Qwen/Qwen3-0.6B', 'Qwen/Qwen3-0.6B'], // the page, loaded from the Hub
    ['  Qwen/Qwen2.5-0.5B-Instruct ', 'Qwen/Qwen2.5-0.5B-Instruct'],
    ['/root/.cache/huggingface/hub/models--Qwen--Qwen3-0.6B/snapshots/abc123', 'Qwen/Qwen3-0.6B'], // the CLI on the HF cache
    ['C:\\hf\\hub\\models--my-org--my.model\\snapshots\\1', 'my-org/my.model'],
    ['Qwen3-0.6B', null], // the page, a picked folder
    ['/models/tiny', null], // the CLI, a folder of unknown origin
    ['./a/b', null],
    ['../x/y', null],
    ['a/b/c', null],
    ['owner/na..me', null],
    ['owner/name\nbase_model: evil', null],
    ['', null],
  ])('%j → %j', (label, id) => {
    expect(hubIdOfModelLabel(label)).toBe(id);
  });
});

describe('the model card written with an adapter', () => {
  const adapter = createLoraAdapter(MODEL, LORA, createRng(7), (rng) => rng.next() - 0.5);

  it('names PEFT and the Hub base model, and the config points at the Hub id', () => {
    const files = writePeftAdapter(adapter, { modelId: '/home/u/.cache/huggingface/hub/models--Qwen--Qwen3-0.6B/snapshots/x', config: MODEL });
    const lines = frontMatter(files[MODEL_CARD_FILE]);
    expect(lines).toContain('library_name: peft');
    expect(lines).toContain('base_model: Qwen/Qwen3-0.6B');
    expect(lines).toContain('- base_model:adapter:Qwen/Qwen3-0.6B');
    expect(baseModelOf(files[ADAPTER_CONFIG_FILE])).toBe('Qwen/Qwen3-0.6B');
    expect(files[MODEL_CARD_FILE]).toContain('AutoModelForCausalLM.from_pretrained("Qwen/Qwen3-0.6B")');
  });

  it('leaves base_model out, and keeps the label in the config, when the Hub id is not known', () => {
    const files = writePeftAdapter(adapter, { modelId: 'my-local-folder', config: MODEL });
    const lines = frontMatter(files[MODEL_CARD_FILE]);
    expect(lines).toContain('library_name: peft');
    expect(lines.filter((l) => l.includes('base_model'))).toEqual([]);
    expect(baseModelOf(files[ADAPTER_CONFIG_FILE])).toBe('my-local-folder');
  });

  it('keeps a hostile label out of the front matter and on one line of the text', () => {
    const card = peftModelCard({ baseModel: 'x\n---\nlibrary_name: evil\n<script>', lora: LORA });
    expect(frontMatter(card)).toEqual(['library_name: peft', 'tags:', '- lora', '- sqlenv']);
    expect(card).not.toContain('<script>');
    expect(card).toContain('the base model `x --- library_name: evil script` (a local copy');
  });

  it('states the LoRA settings', () => {
    expect(peftModelCard({ baseModel: 'Qwen/Qwen3-0.6B', lora: { ...LORA, useRslora: true } })).toContain('LoRA: rank 4, alpha 8 (rsLoRA scaling), on q_proj, v_proj.');
  });
});
