/**
 * State of the Data view. (Filled in by the Data view's work; the store already composes it.)
 */
import type { StateCreator } from 'zustand';
import type { AppState, Middlewares } from './store.ts';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DataSlice {}

export const createDataSlice: StateCreator<AppState, Middlewares, [], DataSlice> = () => ({});

/** The part of this slice that persists across reloads. */
export const persistedData = (_s: AppState): Partial<DataSlice> => ({});
