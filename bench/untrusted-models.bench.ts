/**
 * Issue 22 item 4: how fast the model loaders refuse hostile files, and what the guards cost on real ones.
 * Run: npx tsx bench/untrusted-models.bench.ts. Prints one line per case: the outcome and milliseconds (median of 3).
 * The hostile inputs are the probe's: a PEFT target_modules regex, catastrophic tokenizer.json regexes, chat templates
 * that loop or allocate without end, a 300 MB chat_template.jinja (sparse), a duplicate tensor name. Before the fix
 * each of the first four hung for over 60 s or ran V8 out of memory (see docs/untrusted-models.md).
 */
import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng } from '../src/data/rng.ts';
import { readPeftAdapter, writePeftAdapter } from '../src/model/adapter-file.ts';
import { chatTemplateContext, compileChatTemplate } from '../src/model/chat-template.ts';
import { loadTokenizerFolder, qwen3TokenizerConfig, qwen3TokenizerJsonPath } from '../src/model/files-node.ts';
import { compileLinearRegex } from '../src/model/linear-regex.ts';
import { createLoraAdapter } from '../src/model/lora.ts';
import { parseSafetensorsHeader } from '../src/model/safetensors.ts';
import { tinyModelConfig } from '../src/model/tiny-model.ts';
import { createTokenizer } from '../src/model/tokenizer.ts';
import { findUnsafeTokenizerRegex } from '../src/model/tokenizer-regex.ts';

async function time(label: string, run: () => unknown): Promise<void> {
  const ms: number[] = [];
  let outcome = '';
  for (let k = 0; k < 3; k++) {
    const t0 = performance.now();
    try {
      const value = await run();
      outcome = `ok${typeof value === 'number' || typeof value === 'boolean' ? ` (${value})` : value === null ? ' (null)' : ''}`;
    } catch (e) {
      outcome = `${(e as Error).name}: ${(e as Error).message.slice(0, 90)}`;
    }
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  console.log(`${label.padEnd(44)} ${ms[1].toFixed(1).padStart(8)} ms  ${outcome}`);
}

const model = tinyModelConfig({ vocabSize: 64, hiddenSize: 16, numHeads: 2, numKvHeads: 1, headDim: 8, intermediateSize: 32, numLayers: 28 });
const adapter = writePeftAdapter(createLoraAdapter(model, { rank: 2, alpha: 4, targetModules: ['q_proj'], dropout: 0, useRslora: false }, createRng(1)), { modelId: 'b/b', config: model });
const withTargets = (targets: string) => JSON.stringify({ ...(JSON.parse(adapter['adapter_config.json']) as Record<string, unknown>), target_modules: targets });

await time('target_modules (.?){40}.{40}, 28 layers', () => readPeftAdapter({ safetensors: adapter['adapter_model.safetensors'], configJson: withTargets('(.?){40}.{40}') }, model));
await time('target_modules .*\\.q_proj, 28 layers', () => readPeftAdapter({ safetensors: adapter['adapter_model.safetensors'], configJson: withTargets('.*\\.q_proj') }, model).layers.length);
await time('linear regex: (a|aa)*b on 10,000 a', () => compileLinearRegex('(a|aa)*b').fullMatch('a'.repeat(10_000)));

const qwenJson = JSON.parse(await readFile(qwen3TokenizerJsonPath(), 'utf8')) as Record<string, unknown>;
const qwenConfig = await qwen3TokenizerConfig();
await time('regex check of the real Qwen3 tokenizer.json', () => findUnsafeTokenizerRegex(qwenJson));
const hostileSplit = { ...qwenJson, pre_tokenizer: { type: 'Split', pattern: { Regex: '(\\w|\\w)*;' }, behavior: 'Isolated' } };
await time('tokenizer.json Split (\\w|\\w)*;', () => createTokenizer(hostileSplit, qwenConfig));
const hostileReplace = { ...qwenJson, normalizer: { type: 'Replace', pattern: { Regex: '(\\w|\\w)*;' }, content: '' } };
await time('tokenizer.json Replace (\\w|\\w)*;', () => createTokenizer(hostileReplace, qwenConfig));

const render = (source: string) => () => compileChatTemplate(source).render({ messages: [] }).length;
await time('template range(100000000)', render('{% for i in range(100000000) %}{% endfor %}x'));
await time('template 3000 × 3000 empty loops', render('{% for i in range(3000) %}{% for j in range(3000) %}{% endfor %}{% endfor %}x'));
await time('template list doubled 40 times', render('{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}'));
await time('template string doubled 40 times', render('{% set ns = namespace(s="ab") %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}'));

const tools = [{ type: 'function', function: { name: 'query', description: 'Run SQL', parameters: { type: 'object', properties: { sql: { type: 'string' } } } } }];
const messages = Array.from({ length: 61 }, (_, i) => (i % 2 === 0 ? { role: 'user', content: `q${i}` } : { role: 'assistant', content: `a${i}` }));
const qwenTemplate = compileChatTemplate(qwenConfig.chat_template as string);
await time('Qwen3 template, 61 messages + tools (budgeted)', () => qwenTemplate.render(chatTemplateContext(qwenConfig, { messages, addGenerationPrompt: true, tools }, { enable_thinking: false })).length);

const dir = await mkdtemp(join(tmpdir(), 'untrusted-bench-'));
try {
  await writeFile(join(dir, 'tokenizer.json'), '{"model":{}}');
  await writeFile(join(dir, 'tokenizer_config.json'), '{"chat_template":"x"}');
  await writeFile(join(dir, 'chat_template.jinja'), '');
  await truncate(join(dir, 'chat_template.jinja'), 300 * 1024 * 1024);
  await time('300 MB chat_template.jinja (sparse)', () => loadTokenizerFolder(dir));
} finally {
  await rm(dir, { recursive: true, force: true });
}

const header = new TextEncoder().encode('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}');
const file = new Uint8Array(8 + header.length + 4);
new DataView(file.buffer).setBigUint64(0, BigInt(header.length), true);
file.set(header, 8);
await time('safetensors header naming "a" twice', () => parseSafetensorsHeader(file, file.length, 'x.safetensors').tensors.size);

const qwen = await createTokenizer(qwenJson, qwenConfig);
await time('Qwen3 encode, 200,000 chars of mixed spaces', () => qwen.encode(' \t\n  x'.repeat(40_000)).length);
