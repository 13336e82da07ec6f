/**
 * A checkpoint read back from storage, checked before a resumed run allocates anything for it: its adapter and its
 * KL reference adapter (the frozen adapter a GRPO run with klBeta > 0 anchors to, TRL's "ref" adapter; trainer.ts)
 * must fit the loaded base model — the shapes of `loraShapes`, data of that length, finite values
 * (`validateLoraAdapter`, the check a PEFT file gets) — and the reference must have the adapter's rank and targets,
 * since the run's model is planned for those. A checkpoint file is untrusted (a CLI folder can be edited; a v8 or
 * IndexedDB record can hold anything), so whatever shape it has, a bad one gives `CheckpointFileError` naming the
 * checkpoint and the tensor at fault, never a TypeError deep in the model.
 *
 * The reference field: a LoraAdapter (anchor there), null (anchor to the base model), or absent — a checkpoint saved
 * before checkpoints kept it; such a resume anchors to the checkpoint's adapter, the best that can be done, and the
 * service says so.
 */
import type { ModelConfig } from '../model/config.ts';
import { validateLoraAdapter } from '../model/adapter-file.ts';
import type { LoraAdapter } from '../model/lora.ts';
import type { StoredCheckpoint } from './train-store.ts';

export class CheckpointFileError extends Error {
  override name = 'CheckpointFileError';
  constructor(
    readonly checkpointId: string,
    readonly field: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`Checkpoint '${checkpointId}' cannot be resumed: ${field} ${detail}. The checkpoint is damaged or was saved for another model; resume an earlier one or start a new run.`, options);
  }
}

/** What a resume takes from a checkpoint once checked: its adapter, and its reference (undefined: not saved). */
export interface CheckedCheckpoint {
  adapter: LoraAdapter;
  referenceAdapter: LoraAdapter | null | undefined;
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null;
}

/** Runs `validateLoraAdapter`, turning any failure (a LoraConfigError, or a TypeError on a malformed record) into a CheckpointFileError. */
function checkAdapter(checkpointId: string, what: string, value: unknown, model: ModelConfig): LoraAdapter {
  if (!isRecord(value) || !isRecord(value.config) || !Array.isArray(value.layers)) throw new CheckpointFileError(checkpointId, what, 'is not an adapter (no config and layers)');
  const adapter = value as unknown as LoraAdapter;
  try {
    validateLoraAdapter(model, adapter);
  } catch (e) {
    const field = isRecord(e) && typeof e.field === 'string' ? `${what} tensor ${e.field}` : what;
    const message = e instanceof Error ? e.message : String(e);
    throw new CheckpointFileError(checkpointId, field, `is unusable (${message})`, { cause: e });
  }
  return adapter;
}

/** The checkpoint's adapter and reference, checked against `model` (see the header). */
export function checkCheckpoint(saved: StoredCheckpoint, model: ModelConfig): CheckedCheckpoint {
  const id = saved.info.id;
  const adapter = checkAdapter(id, 'its adapter', saved.adapter, model);
  const stored: unknown = saved.referenceAdapter;
  if (stored === undefined || stored === null) return { adapter, referenceAdapter: stored };
  const reference = checkAdapter(id, 'its KL reference adapter', stored, model);
  const targets = (c: LoraAdapter['config']) => [...c.targetModules].sort().join(', ');
  if (reference.config.rank !== adapter.config.rank || targets(reference.config) !== targets(adapter.config)) {
    throw new CheckpointFileError(
      id,
      'its KL reference adapter',
      `has rank ${reference.config.rank} on ${targets(reference.config)}, but the run's adapter rank ${adapter.config.rank} on ${targets(adapter.config)}`,
    );
  }
  return { adapter, referenceAdapter: reference };
}
