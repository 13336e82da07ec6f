/**
 * Settings that persist across reloads: theme, the dataset in use, and whether the first-visit card was closed.
 * Named actions only.
 */
import type { StateCreator } from 'zustand';
import type { AppState, Middlewares } from './store.ts';

export type Theme = 'system' | 'light' | 'dark';

export interface SettingsSlice {
  theme: Theme;
  /** Name of the dataset the views use (`demo`, `spider`, or one imported in the Data view). */
  dataset: string;
  /** The first-visit card on Play was closed: it never shows again (play/FirstVisitCard.tsx). */
  firstVisitDismissed: boolean;
  setTheme: (theme: Theme) => void;
  setDataset: (name: string) => void;
  dismissFirstVisit: () => void;
}

export const createSettingsSlice: StateCreator<AppState, Middlewares, [], SettingsSlice> = (set) => ({
  theme: 'system',
  dataset: 'demo',
  setTheme: (theme) => set({ theme }),
  firstVisitDismissed: false,
  setDataset: (dataset) => set({ dataset }),
  dismissFirstVisit: () => set({ firstVisitDismissed: true }),
});

export const persistedSettings = (s: AppState): Pick<SettingsSlice, 'theme' | 'dataset' | 'firstVisitDismissed'> => ({ theme: s.theme, dataset: s.dataset, firstVisitDismissed: s.firstVisitDismissed });
