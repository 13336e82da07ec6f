/**
 * The numbers the "How it works" page states, all derived from the environment's single sources (rewards.ts,
 * similarity.ts, types.ts), never copied: when a default weight or amount changes, the page changes with it.
 */
import { correctEpisodeReturn, maxReturnWithoutCorrectAnswer, OPERATIONAL, STEP_COST, type RewardWeights } from '../../env/rewards.ts';
import { CELL_F1_WEIGHT, ROW_F1_WEIGHT } from '../../env/similarity.ts';
import { COPY_PLANS } from '../../sql/perturbed-copies.ts';
import { DEFAULT_ENV_CONFIG } from '../../env/types.ts';

/** A number as the page writes it: 0.02, 1, −0.05 (true minus sign; float noise dropped). */
export function numberText(x: number): string {
  const text = String(Number(Math.abs(x).toPrecision(6)));
  return x < 0 ? `−${text}` : text;
}

export interface HelpFigures {
  weights: RewardWeights;
  budget: number;
  sampleRows: number;
  queryTimeoutMs: number;
  operational: typeof OPERATIONAL;
  stepCost: number;
  cellF1Weight: number;
  rowF1Weight: number;
  /** Perturbed copies closeness is measured on, besides the database. */
  copies: number;
  /** C(1) and C(budget): what a correct episode returns at best and at worst. */
  bestCorrectReturn: number;
  worstCorrectReturn: number;
  /** The most an episode without a correct answer can return. */
  bestFailedReturn: number;
}

export function helpFigures(config = DEFAULT_ENV_CONFIG): HelpFigures {
  const { weights, budget } = config;
  return {
    weights,
    budget,
    sampleRows: config.sampleRows,
    queryTimeoutMs: config.queryTimeoutMs,
    operational: OPERATIONAL,
    stepCost: STEP_COST,
    cellF1Weight: CELL_F1_WEIGHT,
    rowF1Weight: ROW_F1_WEIGHT,
    copies: COPY_PLANS.length,
    bestCorrectReturn: correctEpisodeReturn(weights, 1),
    worstCorrectReturn: correctEpisodeReturn(weights, budget),
    bestFailedReturn: maxReturnWithoutCorrectAnswer(weights, budget),
  };
}
