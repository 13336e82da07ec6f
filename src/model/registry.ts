/**
 * The models a user can pick: the known checkpoints (Qwen3-0.6B by default, Qwen2.5-0.5B-Instruct, the published
 * SQLEnv GRPO checkpoints) or any other Hugging Face Hub id (validated here; where a load's files come from is
 * `LlmSource`, src/workers/llm-source.ts). The files a checkpoint needs are listed here once: the small ones first
 * (config before anything else, so an unsupported architecture is refused before a single weight byte is fetched),
 * then either `model.safetensors` or the index and the shards it names.
 */
import { shardFiles } from './load.ts';

export interface RegistryEntry {
  /** Hub repository, `owner/name`. */
  repo: string;
  label: string;
  architecture: 'qwen2' | 'qwen3';
  /** Approximate download size in bytes (bf16 weights + tokenizer), for the picker. */
  approxBytes: number;
  note: string;
}

/** The revision a download uses when none is named (the Hub's default branch). */
export const DEFAULT_REVISION = 'main';

export const MODEL_REGISTRY: readonly RegistryEntry[] = [
  { repo: 'Qwen/Qwen3-0.6B', label: 'Qwen3-0.6B', architecture: 'qwen3', approxBytes: 1_520_000_000, note: 'default base model' },
  { repo: 'Qwen/Qwen2.5-0.5B-Instruct', label: 'Qwen2.5-0.5B-Instruct', architecture: 'qwen2', approxBytes: 1_000_000_000, note: 'Qwen2 architecture' },
  { repo: 'hjerpe/sqlenv-qwen3-0.6b-grpo', label: 'SQLEnv Qwen3-0.6B GRPO', architecture: 'qwen3', approxBytes: 1_520_000_000, note: 'full-weight Qwen3 trained with GRPO on SQLEnv' },
  { repo: 'hjerpe/sqlenv-qwen3-0.6b-grpo-v2', label: 'SQLEnv Qwen3-0.6B GRPO v2', architecture: 'qwen3', approxBytes: 1_520_000_000, note: 'full-weight Qwen3, second GRPO run' },
];

export const DEFAULT_MODEL: RegistryEntry = MODEL_REGISTRY[0];

/** Small files every checkpoint needs, in fetch order (config.json first). generation_config.json may be absent. */
export const CONFIG_FILES = ['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json'] as const;
/** Files that may be missing without failing the load. */
export const OPTIONAL_FILES: ReadonlySet<string> = new Set(['generation_config.json']);
export const SINGLE_WEIGHTS = 'model.safetensors';
export const SHARD_INDEX = 'model.safetensors.index.json';

export class ModelIdError extends Error {
  override name = 'ModelIdError';
  constructor(readonly id: string, reason: string) {
    super(`Model id "${id}" ${reason}. Give a Hub id as owner/name (for example Qwen/Qwen3-0.6B), or pick a local folder.`);
  }
}

/** Hub's rules for owner and name: letters, digits, '-', '_', '.', not starting or ending with '-' or '.', ≤ 96 chars. */
const PART = /^(?![-.])[A-Za-z0-9_.-]{1,96}(?<![-.])$/;

/** Throws ModelIdError unless `id` is a well-formed `owner/name`; returns it trimmed. */
export function validateRepoId(id: string): string {
  const trimmed = id.trim();
  const parts = trimmed.split('/');
  if (parts.length !== 2) throw new ModelIdError(id, 'is not of the form owner/name');
  for (const p of parts) {
    if (!PART.test(p) || p.includes('..')) throw new ModelIdError(id, `has an invalid part "${p}"`);
  }
  return trimmed;
}

/** A revision is a branch, tag or commit; refused when it could escape the URL path. */
export function validateRevision(revision: string): string {
  if (revision.length === 0 || revision.length > 200 || /[\s?#\\]|\.\./.test(revision)) {
    throw new ModelIdError(revision, 'is not a valid revision (branch, tag or commit hash)');
  }
  return revision;
}

/** The registry entry of a repo, if it is a known one. */
export function registryEntry(repo: string): RegistryEntry | undefined {
  return MODEL_REGISTRY.find((e) => e.repo.toLowerCase() === repo.toLowerCase());
}

/**
 * Weight files of a checkpoint: `model.safetensors` when there is no index, else the shards the index names.
 * `indexJson` is the parsed `model.safetensors.index.json` or null when the checkpoint has none.
 */
export function weightFiles(indexJson: unknown): string[] {
  return indexJson === null || indexJson === undefined ? [SINGLE_WEIGHTS] : shardFiles(indexJson);
}
