/**
 * The Train form's check before a run starts: the one settings check of the trainer, the CLI and the training worker
 * (src/train/settings-check.ts), whose problems name the setting at fault as a field (the form marks that field,
 * opening Advanced settings when it is there) and start with its label. (A stored form is filled up to a whole
 * `TrainConfig` by shared-settings.ts.)
 */
import { firstSettingsProblem, type SettingsProblem } from '../../train/settings-check.ts';
import type { TrainConfig } from '../../train/types.ts';

export type ConfigProblem = SettingsProblem;

/** The first problem of `config`, or null when a run may start with it. */
export function configProblem(config: TrainConfig): ConfigProblem | null {
  return firstSettingsProblem(config);
}
