/**
 * A checkpoint's chat template (Jinja, from tokenizer_config.json or chat_template.jinja), rendered under a budget.
 *
 * The template is untrusted code: `{% for i in range(100000000) %}` made V8 abort at 4.6 GB inside transformers.js's
 * `apply_chat_template`, and nested loops or self-calling macros can spin for hours. So the project renders with the
 * same engine (`@huggingface/jinja`, which transformers.js uses) but its own interpreter subclass and globals:
 *  - every node evaluated and every block run (one per loop iteration) costs one step, and a string or list result
 *    one more step per STRING_STEP_CHARS characters or items (work the engine did to build it); past
 *    MAX_TEMPLATE_STEPS the render stops;
 *  - `range()` refuses, before allocating, a list longer than MAX_TEMPLATE_LIST;
 *  - any value longer than MAX_TEMPLATE_STRING characters or MAX_TEMPLATE_LIST items stops the render (each result
 *    is checked as it is made, so nothing grows past twice the cap);
 *  - a wall-clock deadline (RENDER_DEADLINE_MS) backs the step count up for native string operations whose cost a
 *    node count cannot see (`'x' in s` over a long s, repeated);
 *  - a stack overflow (macros calling themselves, or a template nested thousands deep) is caught.
 * Each of these is a ChatTemplateError (TemplateBudgetError for the budgets) naming the limit. The template's size is
 * capped where it is read (file-caps.ts: MAX_FILE_BYTES['chat_template.jinja']) and again here.
 *
 * The context is the one `apply_chat_template` builds — messages, add_generation_prompt, tools, documents, the
 * special tokens of tokenizer_config.json, then the caller's keyword arguments — so the text is the same
 * (tests/model/chat-template.test.ts compares the two on the Qwen3 template).
 */
import { Environment, Interpreter, Template } from '@huggingface/jinja';
import { MAX_FILE_BYTES } from './file-caps.ts';

/**
 * Steps one render may spend. The Qwen3 template evaluates about 3,900 nodes for a 61-message chat with tools (about
 * 64 a message), so this admits chats of some 3,000 messages; the engine runs 0.1–1 M steps a second.
 */
export const MAX_TEMPLATE_STEPS = 200_000;
/** Characters of a string result (or items of a list) that cost one extra step. */
export const STRING_STEP_CHARS = 1024;
/** Longest string any expression of the template may produce (the whole prompt included), in UTF-16 units. */
export const MAX_TEMPLATE_STRING = 4 * 1024 * 1024;
/** Longest list (range() included) or most keys of a mapping any expression may produce. */
export const MAX_TEMPLATE_LIST = 100_000;
/** A render still going after this many milliseconds stops: the backstop for costs the step count cannot see. */
export const RENDER_DEADLINE_MS = 5000;
/** Longest template source accepted, in UTF-16 units (the file cap, in bytes, bounds it first). */
export const MAX_TEMPLATE_SOURCE = MAX_FILE_BYTES['chat_template.jinja'];

export class ChatTemplateError extends Error {
  override name = 'ChatTemplateError';
}

/** A render that ran past one of the budgets above. */
export class TemplateBudgetError extends ChatTemplateError {
  override name = 'TemplateBudgetError';
  constructor(
    readonly limit: 'steps' | 'string' | 'list' | 'time' | 'stack',
    detail: string,
  ) {
    super(`The chat template ${detail}; a chat template of a Qwen checkpoint needs a few thousand steps. The checkpoint's tokenizer_config.json or chat_template.jinja is damaged or hostile.`);
  }
}

/** Keys of tokenizer_config.json `apply_chat_template` passes to the template (transformers.js's list). */
const SPECIAL_TOKEN_KEYS = ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'] as const;

type RuntimeValue = ReturnType<Interpreter['evaluate']>;
type Statement = Parameters<Interpreter['evaluate']>[0];

/** The engine's interpreter, charging each evaluated node against the budgets. */
/** The budgets of one render; DEFAULT_TEMPLATE_LIMITS unless a caller (a test) narrows or widens one. */
export interface TemplateLimits {
  maxSteps: number;
  maxString: number;
  maxList: number;
  deadlineMs: number;
}

export const DEFAULT_TEMPLATE_LIMITS: Readonly<TemplateLimits> = {
  maxSteps: MAX_TEMPLATE_STEPS,
  maxString: MAX_TEMPLATE_STRING,
  maxList: MAX_TEMPLATE_LIST,
  deadlineMs: RENDER_DEADLINE_MS,
};

class BudgetedInterpreter extends Interpreter {
  private steps = 0;
  private readonly deadline: number;

  constructor(
    env: Environment,
    private readonly limits: TemplateLimits,
  ) {
    super(env);
    this.deadline = Date.now() + limits.deadlineMs;
    // A loop iteration whose body is empty evaluates no node, so `for` over `for` would run free: each block (one per
    // iteration) costs a step too. evaluateBlock is private in the engine's typings, hence the instance wrapper.
    const self = this as unknown as { evaluateBlock: (statements: Statement[], environment: Environment) => RuntimeValue };
    const evaluateBlock = self.evaluateBlock.bind(this);
    self.evaluateBlock = (statements, environment) => {
      this.charge(1);
      return evaluateBlock(statements, environment);
    };
  }

  override evaluate(statement: Statement, environment: Environment): RuntimeValue {
    this.charge(1);
    const value = super.evaluate(statement, environment);
    const inner: unknown = value.value;
    if (typeof inner === 'string') {
      if (inner.length > this.limits.maxString) throw new TemplateBudgetError('string', `made a string of ${inner.length} characters (at most ${this.limits.maxString})`);
      this.charge(Math.floor(inner.length / STRING_STEP_CHARS));
    } else if (Array.isArray(inner) || inner instanceof Map) {
      const size = Array.isArray(inner) ? inner.length : inner.size;
      if (size > this.limits.maxList) throw new TemplateBudgetError('list', `made a list of ${size} items (at most ${this.limits.maxList})`);
      this.charge(Math.floor(size / STRING_STEP_CHARS));
    }
    return value;
  }

  /** Steps spent so far (for tests and figures). */
  get spent(): number {
    return this.steps;
  }

  private charge(steps: number): void {
    const before = this.steps;
    this.steps += steps;
    if (this.steps > this.limits.maxSteps) throw new TemplateBudgetError('steps', `ran past ${this.limits.maxSteps} steps`);
    // The clock is read every 64 steps: cheap next to a step (a microsecond or more).
    if (before >>> 6 !== this.steps >>> 6 && Date.now() > this.deadline) throw new TemplateBudgetError('time', `ran past ${this.limits.deadlineMs} ms`);
  }
}

/** Python's range(), refusing (before allocating) a list longer than `maxList`. */
const boundedRange = (maxList: number) => (start: unknown, stop?: unknown, step: unknown = 1): number[] => {
  const [from, to] = stop === undefined ? [0, start] : [start, stop];
  if (![from, to, step].every((n) => typeof n === 'number' && Number.isSafeInteger(n))) throw new ChatTemplateError('range() takes integers');
  const [a, b, s] = [from, to, step] as [number, number, number];
  if (s === 0) throw new ChatTemplateError('range() step must not be zero');
  const length = Math.max(0, Math.ceil((b - a) / s));
  if (length > maxList) throw new TemplateBudgetError('list', `asked for range() of ${length} numbers (at most ${maxList})`);
  return Array.from({ length }, (_, i) => a + i * s);
};

/** `strftime_now` as the engine defines it (%Y %m %d %b %B %H %M %%), for templates that print the date. */
function strftimeNow(format: unknown): string {
  if (typeof format !== 'string') throw new ChatTemplateError('strftime_now() takes a format string');
  const date = new Date();
  const pad2 = (n: number) => String(n).padStart(2, '0');
  return format.replace(/%[YmdbBHM%]/g, (token) => {
    switch (token) {
      case '%Y':
        return String(date.getFullYear());
      case '%m':
        return pad2(date.getMonth() + 1);
      case '%d':
        return pad2(date.getDate());
      case '%b':
        return new Intl.DateTimeFormat(undefined, { month: 'short' }).format(date);
      case '%B':
        return new Intl.DateTimeFormat(undefined, { month: 'long' }).format(date);
      case '%H':
        return pad2(date.getHours());
      case '%M':
        return pad2(date.getMinutes());
      default:
        return '%';
    }
  });
}

/** The engine's globals (its `setupGlobals`), with the bounded range(). */
function globals(limits: TemplateLimits): Record<string, unknown> {
  return {
    false: false,
    true: true,
    none: null,
    False: false,
    True: true,
    None: null,
    raise_exception: (message: unknown) => {
      throw new ChatTemplateError(`The chat template raised: ${String(message)}`);
    },
    range: boundedRange(limits.maxList),
    strftime_now: strftimeNow,
  };
}

function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}

/** A parsed chat template; `render` may be called many times. */
export interface ChatTemplate {
  render(context: Record<string, unknown>): string;
}

/** Parses `source`; throws ChatTemplateError when it is too long or not a template the engine can parse. */
export function compileChatTemplate(source: string, limits: Partial<TemplateLimits> = {}): ChatTemplate {
  const budget: TemplateLimits = { ...DEFAULT_TEMPLATE_LIMITS, ...limits };
  if (source.length > MAX_TEMPLATE_SOURCE) throw new ChatTemplateError(`The chat template has ${source.length} characters; at most ${MAX_TEMPLATE_SOURCE} are accepted (Qwen's are under 10,000).`);
  let parsed: Template['parsed'];
  try {
    parsed = new Template(source).parsed;
  } catch (e) {
    if (isStackOverflow(e)) throw new TemplateBudgetError('stack', 'is nested too deeply to parse');
    throw new ChatTemplateError(`The chat template cannot be parsed: ${(e as Error).message}`, { cause: e });
  }
  return {
    render(context) {
      const env = new Environment();
      for (const [key, value] of Object.entries({ ...globals(budget), ...context })) env.set(key, value);
      try {
        const value: unknown = new BudgetedInterpreter(env, budget).run(parsed).value;
        if (typeof value !== 'string') throw new ChatTemplateError(`The chat template rendered a ${typeof value}, not text`);
        return value;
      } catch (e) {
        if (e instanceof ChatTemplateError) throw e;
        if (isStackOverflow(e)) throw new TemplateBudgetError('stack', 'recursed past the call stack (a macro calling itself?)');
        throw new ChatTemplateError(`The chat template failed: ${(e as Error).message}`, { cause: e });
      }
    },
  };
}

/** The context `apply_chat_template` gives a template: fixed fields, special tokens, then `kwargs`. */
export function chatTemplateContext(
  tokenizerConfig: Record<string, unknown>,
  fields: { messages: unknown[]; addGenerationPrompt: boolean; tools: unknown[] | null },
  kwargs: Record<string, unknown> = {},
): Record<string, unknown> {
  const special: Record<string, string> = {};
  for (const key of SPECIAL_TOKEN_KEYS) {
    const item = tokenizerConfig[key];
    if (typeof item === 'string' && item !== '') special[key] = item;
    else if (typeof item === 'object' && item !== null && (item as { __type?: unknown }).__type === 'AddedToken') {
      const content = (item as { content?: unknown }).content;
      if (typeof content === 'string' && content !== '') special[key] = content;
    }
  }
  return { messages: fields.messages, add_generation_prompt: fields.addGenerationPrompt, tools: fields.tools, documents: null, ...special, ...kwargs };
}
