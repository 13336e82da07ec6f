/** What the store writes to localStorage: each slice's own `persisted…` selection, merged. */
import { persistedCompare } from './compare-slice.ts';
import { persistedData } from './data-slice.ts';
import { persistedEvaluate } from './evaluate-slice.ts';
import { persistedPlay } from './play-slice.ts';
import { persistedSettings } from './settings-slice.ts';
import { persistedTjs } from './tjs-slice.ts';
import type { AppState } from './store.ts';
import { persistedTrain } from './train-slice.ts';
import { persistedWatch } from './watch-slice.ts';

export function persistedState(s: AppState): Partial<AppState> {
  return { ...persistedSettings(s), ...persistedPlay(s), ...persistedWatch(s), ...persistedEvaluate(s), ...persistedCompare(s), ...persistedTrain(s), ...persistedData(s), ...persistedTjs(s) };
}
