/**
 * The app's one store, split into feature slices (settings, datasets, play, watch, evaluate, compare, train, data).
 * Only named actions and worker-client handlers write to it; components select the smallest piece they need. Each
 * slice file says which of its fields persist (localStorage) across reloads.
 */
import { create } from 'zustand';
import { persist } from 'zustand/middleware';
import { persistedState } from './persisted.ts';
import { createCompareSlice, type CompareSlice } from './compare-slice.ts';
import { createDataSlice, type DataSlice } from './data-slice.ts';
import { createDatasetsSlice, type DatasetsSlice } from './datasets-slice.ts';
import { createEvaluateSlice, type EvaluateSlice } from './evaluate-slice.ts';
import { createPlaySlice, type PlaySlice } from './play-slice.ts';
import { createSettingsSlice, type SettingsSlice } from './settings-slice.ts';
import { createTjsSlice, type TjsSlice } from './tjs-slice.ts';
import { createTrainSlice, type TrainSlice } from './train-slice.ts';
import { createWatchSlice, type WatchSlice } from './watch-slice.ts';

export type AppState = SettingsSlice & DatasetsSlice & PlaySlice & WatchSlice & EvaluateSlice & CompareSlice & TrainSlice & DataSlice & TjsSlice;
export type Middlewares = [['zustand/persist', unknown]];

export const useStore = create<AppState>()(
  persist(
    (...a) => ({
      ...createSettingsSlice(...a),
      ...createDatasetsSlice(...a),
      ...createPlaySlice(...a),
      ...createWatchSlice(...a),
      ...createEvaluateSlice(...a),
      ...createCompareSlice(...a),
      ...createTrainSlice(...a),
      ...createDataSlice(...a),
      ...createTjsSlice(...a),
    }),
    { name: 'sqlenv-settings', version: 1, partialize: persistedState },
  ),
);
