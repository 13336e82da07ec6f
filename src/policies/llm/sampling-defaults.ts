/**
 * How a Qwen policy samples when a setting is left out: Qwen3's recommendations (its model card; the thinking values
 * are also its generation_config.json), which differ with thinking on. One table for `LlmPolicy`, the Model panel's
 * settings (workers/llm-settings.ts), the page's settings form and `sqlenv export`'s token limits.
 *
 *   thinking off: temperature 0.7, top-p 0.8, at most 256 new tokens a turn (a tool call is short)
 *   thinking on:  temperature 0.6, top-p 0.95, at most 1,024 new tokens a turn (the think block comes first)
 */

export interface SamplingDefaults {
  /** Per-turn token limit. */
  maxNewTokens: number;
  /** 0 is greedy. */
  temperature: number;
  /** Nucleus mass in (0, 1]. */
  topP: number;
}

const OFF: SamplingDefaults = { maxNewTokens: 256, temperature: 0.7, topP: 0.8 };
const ON: SamplingDefaults = { maxNewTokens: 1024, temperature: 0.6, topP: 0.95 };

/** The defaults with thinking off or on (a fresh object: callers may spread and change it). */
export function samplingDefaults(thinking: boolean): SamplingDefaults {
  return { ...(thinking ? ON : OFF) };
}

/**
 * `settings` with thinking turned on or off, as the Model panel's checkbox sends it: each sampling field still at the
 * old mode's default moves to the new mode's, and one a person changed stays. (Without this, the page's form, which
 * always holds explicit values, played thinking at temperature 0.7, top-p 0.8 and 256 tokens, where `sqlenv eval
 * --thinking` plays 0.6, 0.95 and 1,024.)
 */
export function switchThinking<T extends SamplingDefaults & { thinking: boolean }>(settings: T, thinking: boolean): T {
  const from = samplingDefaults(settings.thinking);
  const to = samplingDefaults(thinking);
  const follow = <K extends keyof SamplingDefaults>(k: K): SamplingDefaults[K] => (settings[k] === from[k] ? to[k] : settings[k]);
  return { ...settings, thinking, maxNewTokens: follow('maxNewTokens'), temperature: follow('temperature'), topP: follow('topP') };
}
