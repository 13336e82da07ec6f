/** A policy's label for people ('oracle' → 'Oracle'), from the worker's policy list; the name until it loads. */
import { useCallback } from 'react';
import { useStore } from '../store/store.ts';

export function usePolicyLabel(): (name: string) => string {
  const policies = useStore((s) => s.policyInfos);
  return useCallback((name: string) => policies?.find((p) => p.name === name)?.label ?? name, [policies]);
}
