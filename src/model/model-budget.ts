/**
 * The memory budget a model from untrusted files must fit before anything is sized from it. A config.json can be
 * plausible field by field (config.ts checks each against CONFIG_RANGES) and still describe a model far beyond the
 * page: the memory plan of src/gpu answers "how many bytes would this need" from the config alone, and
 * `checkModelFits` refuses it with MemoryBudgetError before a weight is decoded or a buffer is made.
 *
 * The plan checked is the engine's inference plan at its defaults: f16 weights, one sequence, the default context
 * (context.ts: 2,048 tokens, or the model's maximum if smaller). Qwen3-0.6B needs about 1.7 GiB of it; the default
 * budget, 6 GiB, admits models up to about 2.5B parameters. The CPU side holds the decoded f32 weights (twice the f16 plan's weights) while
 * loading, and the float64 reference four times: `checkBytesFit` bounds those and the weight files' sizes.
 */
import { GpuShapeError } from '../gpu/errors.ts';
import { checkPlanFits, MemoryBudgetError, planMemory, type MemoryPlan } from '../gpu/memory-plan.ts';
import { ModelConfigError, validateModelConfig, type ModelConfig } from './config.ts';
import { contextTokensFor } from './context.ts';

const GIB = 1024 ** 3;
/** Total bytes of the engine's default plan a loaded model may need. */
export const DEFAULT_MODEL_BUDGET_BYTES = 6 * GIB;
/** Bytes the float64 CPU reference may hold for weights (Qwen3-0.6B: 4.8 GB). */
export const DEFAULT_REFERENCE_BUDGET_BYTES = 16 * GIB;

export interface BudgetOptions {
  /** Default DEFAULT_MODEL_BUDGET_BYTES. */
  budgetBytes?: number;
  /** The config's file, for messages. Default config.json. */
  file?: string;
}

/** The engine's default inference plan for `config` (f16 weights, B = 1, S = contextTokensFor(config): context.ts). */
export function defaultModelPlan(config: ModelConfig, file = 'config.json'): MemoryPlan {
  validateModelConfig(config, file);
  try {
    return planMemory(config, { batch: 1, context: contextTokensFor(config), weights: 'f16' });
  } catch (e) {
    if (e instanceof GpuShapeError) {
      throw new ModelConfigError('hidden_size, intermediate_size, head_dim', `the engine cannot lay out these dimensions (${e.message}); Qwen checkpoints have even sizes`, file);
    }
    throw e;
  }
}

/** Throws ModelConfigError or MemoryBudgetError unless `config` is in range and its default plan fits the budget. */
export function checkModelFits(config: ModelConfig, options: BudgetOptions = {}): MemoryPlan {
  const file = options.file ?? 'config.json';
  const plan = defaultModelPlan(config, file);
  checkPlanFits(plan, options.budgetBytes ?? DEFAULT_MODEL_BUDGET_BYTES, `The model of ${file}`);
  return plan;
}

/** Throws MemoryBudgetError when `bytes` (an allocation or a file about to be read whole) exceeds `budgetBytes`. */
export function checkBytesFit(what: string, bytes: number, budgetBytes: number, hint: string): void {
  if (!(bytes <= budgetBytes)) throw new MemoryBudgetError(what, bytes, budgetBytes, hint);
}
