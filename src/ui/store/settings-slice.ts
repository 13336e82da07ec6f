/**
 * Settings that persist across reloads: theme and the dataset in use. Named actions only.
 */
import type { StateCreator } from 'zustand';
import type { AppState, Middlewares } from './store.ts';

export type Theme = 'system' | 'light' | 'dark';

export interface SettingsSlice {
  theme: Theme;
  /** Name of the dataset the views use (`demo`, `spider`, or one imported in the Data view). */
  dataset: string;
  setTheme: (theme: Theme) => void;
  setDataset: (name: string) => void;
}

export const createSettingsSlice: StateCreator<AppState, Middlewares, [], SettingsSlice> = (set) => ({
  theme: 'system',
  dataset: 'demo',
  setTheme: (theme) => set({ theme }),
  setDataset: (dataset) => set({ dataset }),
});

export const persistedSettings = (s: AppState): Pick<SettingsSlice, 'theme' | 'dataset'> => ({ theme: s.theme, dataset: s.dataset });
