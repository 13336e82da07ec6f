/**
 * State of the Evaluate view. (Filled in by the Evaluate view's work; the store already composes it.)
 */
import type { StateCreator } from 'zustand';
import type { AppState, Middlewares } from './store.ts';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface EvaluateSlice {}

export const createEvaluateSlice: StateCreator<AppState, Middlewares, [], EvaluateSlice> = () => ({});

/** The part of this slice that persists across reloads. */
export const persistedEvaluate = (_s: AppState): Partial<EvaluateSlice> => ({});
