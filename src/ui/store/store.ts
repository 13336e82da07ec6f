/**
 * The app's one store, split into feature slices (settings, datasets, play, watch, model, evaluate, compare, train,
 * data, tjs). Only named actions and worker-client handlers write to it; components select the smallest piece they
 * need. Each slice file says which of its fields persist (localStorage) across reloads: its `persisted…` selection,
 * merged here into what the store writes.
 *
 * Slices are typed against the whole store (`StateCreator<AppState, …>`), so each imports the type `AppState` from
 * here while this file imports the slices: a circle of types only, erased at compile time (the import-graph test,
 * tests/layout/import-graph.test.ts, allows exactly that one and refuses any other).
 */
import { create } from 'zustand';
import { persist } from 'zustand/middleware';
import { createCompareSlice, persistedCompare, type CompareSlice } from './compare-slice.ts';
import { createDataSlice, persistedData, type DataSlice } from './data-slice.ts';
import { createDatasetsSlice, type DatasetsSlice } from './datasets-slice.ts';
import { createEvaluateSlice, persistedEvaluate, type EvaluateSlice } from './evaluate-slice.ts';
import { createModelSlice, persistedModel, type ModelSlice } from './model-slice.ts';
import { createPlaySlice, persistedPlay, type PlaySlice } from './play-slice.ts';
import { createSettingsSlice, persistedSettings, type SettingsSlice } from './settings-slice.ts';
import { createTjsSlice, persistedTjs, type TjsSlice } from './tjs-slice.ts';
import { createTrainSlice, persistedTrain, type TrainSlice } from './train-slice.ts';
import { createWatchSlice, persistedWatch, type WatchSlice } from './watch-slice.ts';

export type AppState = SettingsSlice & DatasetsSlice & PlaySlice & WatchSlice & ModelSlice & EvaluateSlice & CompareSlice & TrainSlice & DataSlice & TjsSlice;
export type Middlewares = [['zustand/persist', unknown]];

/** What the store writes to localStorage: each slice's own `persisted…` selection, merged. */
export function persistedState(s: AppState): Partial<AppState> {
  return { ...persistedSettings(s), ...persistedPlay(s), ...persistedWatch(s), ...persistedModel(s), ...persistedEvaluate(s), ...persistedCompare(s), ...persistedTrain(s), ...persistedData(s), ...persistedTjs(s) };
}

export const useStore = create<AppState>()(
  persist(
    (...a) => ({
      ...createSettingsSlice(...a),
      ...createDatasetsSlice(...a),
      ...createPlaySlice(...a),
      ...createWatchSlice(...a),
      ...createModelSlice(...a),
      ...createEvaluateSlice(...a),
      ...createCompareSlice(...a),
      ...createTrainSlice(...a),
      ...createDataSlice(...a),
      ...createTjsSlice(...a),
    }),
    { name: 'sqlenv-settings', version: 1, partialize: persistedState },
  ),
);
