/**
 * A simple verifiable task for learning tests and `train:toy`: a five-row singer database with short-answer
 * questions, and a small phrase tokenizer that makes a whole tool call one token, so a tiny random model (V = 31)
 * produces valid actions by chance and GRPO has reward differences to learn from from the first step.
 *
 * The tokenizer implements the project's `Tokenizer` with a Qwen-like chat template (`<|im_start|>role\n…<|im_end|>`,
 * tool calls as `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`, tool results as `<tool_response>` in a user
 * turn; no think block in the generation prompt). Encoding is greedy longest match over its strings; a run of text
 * that matches none becomes ONE `<unk>` token, so observations (which only condition the model) stay a few tokens
 * long. Each question's text is one token, so the model can tell the questions apart. Decoding concatenates the
 * strings (`<unk>` as U+FFFD). It is a test instrument, not a model tokenizer: use it only with models whose
 * vocabulary is its `size`.
 */
import type { SqlJsStatic } from 'sql.js';
import { computeGoldResult } from '../data/gold.ts';
import type { Dataset, Question, Split } from '../data/types.ts';
import { QWEN_SPECIAL_TOKENS, type ChatMessage, type ChatOptions, type QwenSpecialToken, type Tokenizer, type ToolCall } from '../model/tokenizer.ts';
import { LocalSqlExecutor } from '../sql/executor.ts';
import { hasOrderBy } from '../sql/order-by.ts';

const SCHEMA = `
CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT, age INTEGER);
CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, title TEXT, year INTEGER);
INSERT INTO singer VALUES (1,'Ana','France',31),(2,'Bo','Spain',45),(3,'Cy','France',28),(4,'Di','Chile',52),(5,'Ed','Spain',39);
INSERT INTO concert VALUES (1,'Spring',2014),(2,'Summer',2015),(3,'Autumn',2015);
`;

export const TOY_DB = 'toy_concerts';

export const TOY_QUESTIONS: ReadonlyArray<{ id: string; question: string; gold: string; split: Split }> = [
  { id: 'toy-1', question: 'How many singers are there?', gold: 'SELECT count(*) FROM singer', split: 'train' },
  { id: 'toy-2', question: 'How many concerts are there?', gold: 'SELECT count(*) FROM concert', split: 'train' },
  { id: 'toy-3', question: 'Who is the oldest singer?', gold: 'SELECT name FROM singer ORDER BY age DESC LIMIT 1', split: 'train' },
  { id: 'toy-4', question: 'Who is the youngest singer?', gold: 'SELECT name FROM singer ORDER BY age ASC LIMIT 1', split: 'train' },
  { id: 'toy-5', question: 'How many singers are from France?', gold: "SELECT count(*) FROM singer WHERE country = 'France'", split: 'eval' },
  { id: 'toy-6', question: 'Which country is Ana from?', gold: "SELECT country FROM singer WHERE name = 'Ana'", split: 'eval' },
];

/** Values an answer call can carry as one token. */
export const TOY_ANSWERS: ReadonlyArray<string | number> = [5, 3, 2, 'Di', 'Cy', 'Ana', 'France', 'Spain'];
const TOY_TABLES = ['singer', 'concert'];
/** Words that are not actions (a reply made only of them is invalid). */
const FILLERS = ['hmm', 'well'];

/** JSON as Python's json.dumps writes it (", " and ": " separators), which Qwen's template uses for arguments. */
export function pyJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pyJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pyJson(v)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function renderCall(call: ToolCall): string {
  return `<tool_call>\n{"name": ${JSON.stringify(call.name)}, "arguments": ${pyJson(call.arguments)}}\n</tool_call>`;
}

/** The toy chat template (see the header). */
export function renderToyChat(messages: readonly ChatMessage[], options: ChatOptions = {}): string {
  let out = '';
  for (const m of messages) {
    if (m.role === 'assistant') {
      out += `<|im_start|>assistant\n${m.content}`;
      (m.toolCalls ?? []).forEach((call, i) => {
        if (i > 0 || m.content !== '') out += '\n';
        out += renderCall(call);
      });
      out += '<|im_end|>\n';
    } else if (m.role === 'tool') {
      out += `<|im_start|>user\n<tool_response>\n${m.content}\n</tool_response><|im_end|>\n`;
    } else {
      out += `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`;
    }
  }
  if (options.addGenerationPrompt ?? true) out += '<|im_start|>assistant\n';
  return out;
}

const UNK = '<unk>';

/** A phrase tokenizer over `phrases` plus Qwen's special tokens (see the header). */
export function createPhraseTokenizer(phrases: readonly string[]): Tokenizer {
  const specials = Object.values(QWEN_SPECIAL_TOKENS);
  const strings = [...specials, UNK, ...phrases.filter((p) => !specials.includes(p as never) && p !== UNK)];
  const ids = new Map(strings.map((s, i) => [s, i]));
  if (ids.size !== strings.length) throw new Error('phrase tokenizer: duplicate phrases');
  const byLength = [...strings].filter((s) => s !== UNK).sort((a, b) => b.length - a.length);
  const unkId = ids.get(UNK)!;
  const special = {} as Record<QwenSpecialToken, number>;
  for (const [key, token] of Object.entries(QWEN_SPECIAL_TOKENS) as Array<[QwenSpecialToken, string]>) special[key] = ids.get(token)!;
  const specialIds = new Set(Object.values(special));

  const matchAt = (text: string, i: number): string | undefined => byLength.find((s) => text.startsWith(s, i));
  const encode = (text: string): number[] => {
    const out: number[] = [];
    let i = 0;
    while (i < text.length) {
      const m = matchAt(text, i);
      if (m !== undefined) {
        out.push(ids.get(m)!);
        i += m.length;
        continue;
      }
      while (i < text.length && matchAt(text, i) === undefined) i++;
      out.push(unkId);
    }
    return out;
  };
  return {
    encode,
    decode: (tokenIds, options = {}) =>
      tokenIds
        .filter((id) => !(options.skipSpecialTokens && specialIds.has(id)))
        .map((id) => (id === unkId ? '\uFFFD' : (strings[id] ?? '\uFFFD')))
        .join(''),
    renderChat: renderToyChat,
    encodeChat: (messages, options) => encode(renderToyChat(messages, options)),
    tokenId: (token) => ids.get(token),
    special,
    size: strings.length,
  };
}

/** The toy task's tokenizer: chat structure, the questions, whole answer/describe calls, a few filler words. */
export function createToyTokenizer(): Tokenizer {
  const calls = [
    ...TOY_ANSWERS.map((value): ToolCall => ({ name: 'answer', arguments: { value } })),
    ...TOY_TABLES.map((table): ToolCall => ({ name: 'describe', arguments: { table } })),
  ].map(renderCall);
  return createPhraseTokenizer(['system\n', 'user\n', 'assistant\n', '<tool_response>\n', '\n</tool_response>', ...TOY_QUESTIONS.map((q) => q.question), ...calls, ...FILLERS]);
}

/** The toy dataset (gold results computed by the real engine). */
export async function buildToyDataset(sql: SqlJsStatic): Promise<Dataset> {
  const db = new sql.Database();
  db.run(SCHEMA);
  const bytes = db.export();
  db.close();
  const executor = new LocalSqlExecutor(sql);
  await executor.load(TOY_DB, bytes);
  const questions: Question[] = [];
  for (const q of TOY_QUESTIONS) {
    const gold = await computeGoldResult(executor, TOY_DB, q.gold);
    if (!gold.ok) throw new Error(`toy gold SQL failed: ${gold.reason}`);
    questions.push({ ...q, dbId: TOY_DB, difficulty: 'easy', goldResult: gold.result, orderMatters: hasOrderBy(q.gold) });
  }
  await executor.close();
  return {
    name: 'toy',
    description: 'A five-singer database with short-answer questions, for learning tests.',
    license: 'CC0',
    databases: [{ id: TOY_DB, file: `db/${TOY_DB}.sqlite`, tables: ['singer', 'concert'] }],
    questions,
    loadDatabase: async () => bytes,
  };
}
