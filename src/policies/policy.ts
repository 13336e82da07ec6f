/**
 * The policy interface. A policy sees the episode so far (first observation, then every action, observation and
 * reward) and a seeded generator, and returns its next action. Random, Oracle, a person and model policies all
 * implement it, so evaluation and the UI never branch on the kind of policy.
 */
import type { Rng } from '../data/rng.ts';
import type { Question } from '../data/types.ts';
import type { ActionInput, ParsedAction } from '../env/actions.ts';
import type { Observation } from '../env/types.ts';

export interface HistoryEntry {
  action: ParsedAction;
  observation: Observation;
  reward: number;
}

export interface PolicyContext {
  /** The observation `reset` returned. */
  first: Observation;
  history: readonly HistoryEntry[];
  /** The latest observation: `first` or the last history entry's. */
  observation: Observation;
  /**
   * The episode's question with its gold SQL and result. Privileged: only policies that are meant to cheat
   * (Oracle) read it.
   */
  question: Question;
  rng: Rng;
  /** Hears how a turn is going while the policy thinks (model policies: tokens generated so far); optional. */
  onProgress?: (progress: TurnProgress) => void;
}

/** A model policy's turn in progress: the prompt read, and the new tokens generated so far out of the limit. */
export interface TurnProgress {
  promptTokens: number;
  newTokens: number;
  maxNewTokens: number;
}

export interface PolicyDecision {
  action: ActionInput;
  /** Raw text the policy produced (for model policies: the model's text, thinking included). */
  rawText?: string;
}

export interface Policy {
  readonly name: string;
  /** Episodes this policy plays best at once (a model decoding several sequences together); absent = 1. */
  readonly concurrency?: number;
  act(context: PolicyContext): Promise<PolicyDecision>;
}
