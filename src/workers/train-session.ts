/**
 * The trainable model a run gets from its host (the WebGPU model in the worker, the float64 reference in Node tests)
 * and what the host is asked for. Its own module so the services that make runs (train-service.ts,
 * train-reads-session.ts) and the hosts that make models import these types without importing each other.
 */
import type { LoraConfig } from '../model/lora.ts';
import type { CheckpointableModel } from '../train/policy-model.ts';

/** What a run needs of its model beyond training: adapter and AdamW state in and out (checkpoints, resume). */
export type TrainSessionModel = CheckpointableModel;

/** A model made for one run, and how to let it go (its GPU buffers and device). */
export interface TrainSession {
  model: TrainSessionModel;
  destroy(): void;
  /** The device loss that broke the run, if that is what happened (null otherwise). */
  deviceLost?(): Error | null;
}

export interface TrainModelRequest {
  lora: LoraConfig;
  /** Seeds the fresh adapter's A. */
  seed: number;
  rolloutSlots: number;
  contextTokens: number;
  /** 0 = derive from the device's memory. */
  microBatchTokens: number;
  onProgress(loaded: number, total: number, message: string): void;
  /** Aborted when the run is stopped while its model loads: the factory gives up between chunks and before the upload. */
  signal?: AbortSignal;
}
