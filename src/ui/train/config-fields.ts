/**
 * The Train form's view of the settings table (src/train/settings-table.ts, shared with `sqlenv train --help` and
 * the settings check): the table itself, re-exported for the form, plus which settings and groups show for the
 * chosen algorithm (a group with no field for it is not shown). Which settings the two algorithms share is
 * shared-settings.ts's table.
 */
import type { TrainAlgo } from '../../train/types.ts';
import { CHOICE_SETTINGS, NUMBER_SETTINGS, SWITCH_SETTINGS, type SettingGroup } from '../../train/settings-table.ts';

export {
  CHOICE_SETTINGS,
  GROUP_TITLES,
  NUMBER_SETTINGS,
  REWARD_LABELS,
  settingLabel,
  SWITCH_SETTINGS,
  type ChoiceKey,
  type ChoiceSetting,
  type NumberSetting,
  type NumericKey,
  type SettingGroup,
  type SwitchKey,
  type SwitchSetting,
} from '../../train/settings-table.ts';

/** Whether a setting shows for `algo`. */
export function shownFor(setting: { algo?: TrainAlgo }, algo: TrainAlgo): boolean {
  return setting.algo === undefined || setting.algo === algo;
}

/** Whether `group` has a field to show for `algo` (the LoRA targets sit in 'batching'): an empty group is hidden. */
export function groupHasFields(group: SettingGroup, algo: TrainAlgo): boolean {
  if (group === 'batching') return true;
  return [...NUMBER_SETTINGS, ...SWITCH_SETTINGS, ...CHOICE_SETTINGS].some((s) => s.group === group && shownFor(s, algo));
}
