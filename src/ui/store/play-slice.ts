/**
 * State of the Play view. (Filled in by the Play view's work; the store already composes it.)
 */
import type { StateCreator } from 'zustand';
import type { AppState, Middlewares } from './store.ts';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface PlaySlice {}

export const createPlaySlice: StateCreator<AppState, Middlewares, [], PlaySlice> = () => ({});

/** The part of this slice that persists across reloads. */
export const persistedPlay = (_s: AppState): Partial<PlaySlice> => ({});
