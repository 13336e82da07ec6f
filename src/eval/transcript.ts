/**
 * Episode records: plain serialisable objects (no class instances, no UI state) that evaluation produces, the UI
 * renders and JSONL export writes, one episode per line.
 */
import type { Difficulty, Split } from '../data/types.ts';
import type { ParsedAction } from '../env/actions.ts';
import type { RewardComponents } from '../env/rewards.ts';
import type { StepOutcome } from '../env/types.ts';

export interface TranscriptStep {
  action: ParsedAction;
  /** The action in canonical text form. */
  actionText: string;
  observation: string;
  reward: number;
  components: RewardComponents;
  outcome: StepOutcome;
  /** The policy's raw text, when it has one (model policies). */
  rawText?: string;
}

export interface EpisodeRecord {
  policy: string;
  dataset: string;
  questionId: string;
  dbId: string;
  question: string;
  difficulty: Difficulty;
  split: Split;
  seed: number;
  success: boolean;
  episodeReturn: number;
  /** Sum over the episode of each unweighted reward component. */
  components: RewardComponents;
  steps: number;
  terminated: boolean;
  truncated: boolean;
  transcript: TranscriptStep[];
}

export function toJsonl(records: readonly EpisodeRecord[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + (records.length > 0 ? '\n' : '');
}
