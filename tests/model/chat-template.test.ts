/**
 * chat-template.ts: the budgeted renderer gives transformers.js's `apply_chat_template` text exactly on the Qwen3
 * template (the other implementation is the golden value), and stops each hostile template of issue 22 with a typed
 * error naming the budget: range(100000000) (V8 aborted at 4.6 GB before), nested loops with empty bodies, doubling
 * lists and strings, a template nested 100,000 deep, a template over the size cap. None of these cases finishes on
 * the old renderer (checked with a hard timeout; see /tmp/notes/model.md).
 */
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { chatTemplateContext, ChatTemplateError, compileChatTemplate, MAX_TEMPLATE_LIST, MAX_TEMPLATE_SOURCE, MAX_TEMPLATE_STRING, TemplateBudgetError } from '../../src/model/chat-template.ts';
import { createRng, randomInt, type Rng } from '../../src/data/rng.ts';
import { qwen3TokenizerConfig, qwen3TokenizerJsonPath } from '../../src/model/files-node.ts';
import { fuzzSeed } from './fuzz-support.ts';

const TOOLS = [{ type: 'function', function: { name: 'query', description: 'Run one SQL query', parameters: { type: 'object', properties: { sql: { type: 'string' } }, required: ['sql'] } } }];
const CHATS: ReadonlyArray<{ name: string; messages: Array<Record<string, unknown>>; tools: unknown[] | null; thinking: boolean; prompt: boolean }> = [
  { name: 'one user turn', messages: [{ role: 'user', content: 'How many singers?' }], tools: null, thinking: false, prompt: true },
  {
    name: 'tools, a tool call and its result',
    messages: [
      { role: 'system', content: 'You answer with SQL.' },
      { role: 'user', content: 'How many singers?' },
      { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'query', arguments: { sql: 'SELECT count(*) FROM singer' } } }] },
      { role: 'tool', content: '[[6]]' },
    ],
    tools: TOOLS,
    thinking: false,
    prompt: true,
  },
  {
    // About 64 steps a message: 600 messages stay well inside the default budget.
    name: '600 messages with tools, under the default budget',
    messages: Array.from({ length: 600 }, (_, i) => (i % 2 === 0 ? { role: 'user', content: `question ${i}` } : { role: 'assistant', content: `answer ${i}` })),
    tools: TOOLS,
    thinking: false,
    prompt: true,
  },
  { name: 'thinking on, reasoning kept', messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello', reasoning_content: 'greet' }, { role: 'user', content: 'Again' }], tools: null, thinking: true, prompt: false },
];

describe('the Qwen3 template renders as transformers.js renders it', () => {
  let config: Record<string, unknown>;
  let reference: { apply_chat_template: (m: unknown[], o: Record<string, unknown>) => unknown };
  beforeAll(async () => {
    config = await qwen3TokenizerConfig();
    const lib = await import('@huggingface/transformers');
    reference = new lib.Qwen2Tokenizer(JSON.parse(await readFile(qwen3TokenizerJsonPath(), 'utf8')), config) as unknown as typeof reference;
  }, 60_000);

  it.each(CHATS)('$name', ({ messages, tools, thinking, prompt }) => {
    const want = reference.apply_chat_template(messages, { tokenize: false, add_generation_prompt: prompt, tools, enable_thinking: thinking });
    const template = compileChatTemplate(config.chat_template as string);
    const got = template.render(chatTemplateContext(config, { messages, addGenerationPrompt: prompt, tools }, { enable_thinking: thinking }));
    expect(got).toBe(want);
    expect(got).toContain('<|im_start|>user');
  });
});

describe('hostile templates stop with a typed error naming the budget', () => {
  const render = (source: string) => () => compileChatTemplate(source).render({ messages: [] });
  const budget = (source: string): TemplateBudgetError['limit'] => {
    try {
      render(source)();
    } catch (e) {
      expect(e).toBeInstanceOf(TemplateBudgetError);
      return (e as TemplateBudgetError).limit;
    }
    throw new Error(`rendered: ${source.slice(0, 80)}`);
  };

  it('range(100000000) is refused before the list is made', () => {
    expect(budget('{% for i in range(100000000) %}{% endfor %}x')).toBe('list');
    expect(render('{% for i in range(100000000) %}{% endfor %}x')).toThrow(new RegExp(`range\\(\\) of 100000000 numbers \\(at most ${MAX_TEMPLATE_LIST}\\)`));
  });

  it('range() at the cap still works, and counts as Python counts', () => {
    expect(compileChatTemplate('{{ range(10, 0, -3)|join(",") }}|{{ range(4)|length }}').render({})).toBe('10,7,4,1|4');
  });

  it('nested loops with empty bodies run out of steps (the deadline set aside, so only the step count can stop them)', () => {
    const loops = compileChatTemplate('{% for i in range(3000) %}{% for j in range(3000) %}{% endfor %}{% endfor %}x', { maxSteps: 20_000, deadlineMs: Infinity });
    expect(() => loops.render({})).toThrow(/past 20000 steps/);
    // Each iteration costs a step: 100 × 100 empty iterations fit 20,000 steps, 150 × 150 do not.
    expect(compileChatTemplate('{% for i in range(100) %}{% for j in range(100) %}{% endfor %}{% endfor %}x', { maxSteps: 20_000 }).render({})).toBe('x');
    expect(() => compileChatTemplate('{% for i in range(150) %}{% for j in range(150) %}{% endfor %}{% endfor %}x', { maxSteps: 20_000 }).render({})).toThrow(TemplateBudgetError);
  });

  it('the deadline stops a render the step count lets run (a tiny deadline, a generous step budget)', () => {
    const slow = compileChatTemplate('{% for i in range(3000) %}{% for j in range(3000) %}{% endfor %}{% endfor %}x', { maxSteps: Infinity, deadlineMs: 0 });
    expect(() => slow.render({})).toThrow(/past 0 ms/);
  });


  it('a list doubled in a loop stops at the list cap', () => {
    expect(budget('{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l|length }}')).toBe('list');
  });

  it('a string doubled in a loop stops at the string cap', () => {
    expect(budget('{% set ns = namespace(s="ab") %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s|length }}')).toBe('string');
    expect(render('{% set ns = namespace(s="ab") %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}')).toThrow(new RegExp(`at most ${MAX_TEMPLATE_STRING}`));
  });

  it('a template nested 100,000 deep is refused at parse time, as a stack budget', () => {
    expect(() => compileChatTemplate(`{{ ${'('.repeat(100_000)}1${')'.repeat(100_000)} }}`)).toThrow(TemplateBudgetError);
  });

  it('a template over the size cap is refused before parsing', () => {
    expect(() => compileChatTemplate('x'.repeat(MAX_TEMPLATE_SOURCE + 1))).toThrow(new RegExp(`${MAX_TEMPLATE_SOURCE + 1} characters; at most ${MAX_TEMPLATE_SOURCE}`));
    expect(compileChatTemplate('x'.repeat(1000)).render({})).toHaveLength(1000);
  });

  it('raise_exception and engine errors are ChatTemplateErrors with the message', () => {
    expect(render('{{ raise_exception("no system role") }}')).toThrow(/raised: no system role/);
    expect(render('{{ 1 + none }}')).toThrow(ChatTemplateError);
    expect(() => compileChatTemplate('{% for %}')).toThrow(/cannot be parsed/);
  });
});

/** A random template of loops, doublings, ranges, filters and macros: the shapes that hang or exhaust an engine. */
function randomTemplate(rng: Rng, depth = 0): string {
  const n = () => [0, 3, 1000, 100_000, 1e8, 2 ** 40, -5][randomInt(rng, 7)];
  const inner = () => (depth < 3 ? randomTemplate(rng, depth + 1) : 'x');
  switch (randomInt(rng, 9)) {
    case 0:
      return `{% for i in range(${n()}) %}${inner()}{% endfor %}`;
    case 1:
      return `{% set ns = namespace(v="ab") %}{% for i in range(${randomInt(rng, 40)}) %}{% set ns.v = ns.v ~ ns.v %}{% endfor %}{{ ns.v|length }}`;
    case 2:
      return `{% set ns = namespace(v=[1]) %}{% for i in range(${randomInt(rng, 40)}) %}{% set ns.v = ns.v + ns.v %}{% endfor %}{{ ns.v|length }}`;
    case 3:
      return `{{ range(${n()})|join(",")|length }}`;
    case 4:
      return `{% macro m(k) %}${inner()}{% endmacro %}{{ m(1) }}{{ m(2) }}`;
    case 5:
      return `{{ "${'y'.repeat(randomInt(rng, 50))}"|indent(${n()})|length }}`;
    case 6:
      return `{% if messages|length > 0 %}${inner()}{% else %}${inner()}{% endif %}`;
    case 7:
      return `${'{{ ('.repeat(randomInt(rng, 3))}1${')'.repeat(randomInt(rng, 3))}`; // sometimes unbalanced
    default:
      return `${inner()}${inner()}`;
  }
}

describe('seeded fuzz: random hostile templates render or stop with a ChatTemplateError', () => {
  const seed = fuzzSeed('chat-template');
  it(`300 templates under small budgets (seed ${seed})`, () => {
    const rng = createRng(seed);
    const outcomes = new Map<string, number>();
    const limits = { maxSteps: 20_000, maxString: 200_000, maxList: 10_000, deadlineMs: Infinity };
    for (let i = 0; i < 300; i++) {
      const source = randomTemplate(rng);
      let outcome = 'rendered';
      try {
        const out = compileChatTemplate(source, limits).render({ messages: [{ role: 'user', content: 'hi' }] });
        expect(out.length, `seed ${seed}, case ${i}`).toBeLessThanOrEqual(limits.maxString);
      } catch (e) {
        if (!(e instanceof ChatTemplateError)) throw new Error(`seed ${seed}, case ${i}: ${String(e)} escaped for ${source.slice(0, 200)}`, { cause: e });
        outcome = e instanceof TemplateBudgetError ? e.limit : 'ChatTemplateError';
      }
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
    console.log(`chat-template fuzz: ${JSON.stringify(Object.fromEntries(outcomes))}`);
    expect(outcomes.get('rendered') ?? 0, `seed ${seed}`).toBeGreaterThan(0);
    expect(outcomes.get('list') ?? 0, `seed ${seed}`).toBeGreaterThan(0);
  });
});
