/**
 * State of the Compare view. (Filled in by the Compare view's work; the store already composes it.)
 */
import type { StateCreator } from 'zustand';
import type { AppState, Middlewares } from './store.ts';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface CompareSlice {}

export const createCompareSlice: StateCreator<AppState, Middlewares, [], CompareSlice> = () => ({});

/** The part of this slice that persists across reloads. */
export const persistedCompare = (_s: AppState): Partial<CompareSlice> => ({});
