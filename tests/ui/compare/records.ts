/** Small hand-made episode records and transcript steps for the Compare tests (shapes as evaluation writes them). */
import type { Difficulty } from '../../../src/data/types.ts';
import type { EpisodeRecord, TranscriptStep } from '../../../src/eval/transcript.ts';

export function step(actionText: string, body = 'ok', reward = 0.02, outcome: TranscriptStep['outcome'] = 'ok', stepsLeft = 5): TranscriptStep {
  const [type, ...rest] = actionText.split(' ');
  return {
    action: type === 'ANSWER' ? { type: 'ANSWER', value: rest.join(' ') } : type === 'QUERY' ? { type: 'QUERY', sql: rest.join(' ') } : { type: type as 'DESCRIBE', table: rest.join(' ') },
    actionText,
    observation: `> ${actionText}\n${body}\nSteps left: ${stepsLeft}`,
    reward,
    components: { correctness: 0, progress: 0, operational: reward },
    outcome,
    episodeReturn: reward,
  };
}

export function record(questionId: string, success: boolean, options: { policy?: string; dataset?: string; dbId?: string; difficulty?: Difficulty; episodeReturn?: number; steps?: number; transcript?: TranscriptStep[] } = {}): EpisodeRecord {
  const transcript = options.transcript ?? [step('ANSWER 1', success ? 'Answer submitted: correct.' : 'Answer submitted: incorrect.', success ? 1 : 0)];
  return {
    policy: options.policy ?? 'random',
    dataset: options.dataset ?? 'demo',
    questionId,
    dbId: options.dbId ?? 'library',
    question: `Question ${questionId}?`,
    difficulty: options.difficulty ?? 'easy',
    split: 'eval',
    seed: 0,
    success,
    episodeReturn: options.episodeReturn ?? (success ? 1 : 0),
    components: { correctness: success ? 1 : 0, progress: 0, operational: 0 },
    steps: options.steps ?? transcript.length,
    terminated: true,
    truncated: false,
    transcript,
  };
}
