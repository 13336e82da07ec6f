/**
 * State of the Watch view. (Filled in by the Watch view's work; the store already composes it.)
 */
import type { StateCreator } from 'zustand';
import type { AppState, Middlewares } from './store.ts';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface WatchSlice {}

export const createWatchSlice: StateCreator<AppState, Middlewares, [], WatchSlice> = () => ({});

/** The part of this slice that persists across reloads. */
export const persistedWatch = (_s: AppState): Partial<WatchSlice> => ({});
