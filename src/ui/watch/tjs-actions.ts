/**
 * The transformers.js panel's helpers that are not store actions: the source its form names, and whether the worker
 * has a WebGPU adapter. The panel's actions (load, cancel, apply settings, unload, sync, the engine comparison) are
 * the tjs slice's (src/ui/store/tjs-slice.ts).
 */
import { useEffect, useState } from 'react';
import type { LocalFile } from '../../model/local-folder.ts';
import { envClient } from '../../workers/env-client.ts';
import type { LlmSource } from '../../workers/llm-source.ts';
import type { TjsForm } from '../store/tjs-slice.ts';

/** The source the form names (null until it names one: an empty id or URL, no folder picked). */
export function tjsFormSource(form: TjsForm, files: readonly LocalFile[]): LlmSource | null {
  switch (form.kind) {
    case 'hub':
      return form.repo.trim() === '' ? null : { kind: 'hub', repo: form.repo.trim(), ...(form.mirror.trim() !== '' && { base: form.mirror.trim() }) };
    case 'url':
      return form.url.trim() === '' ? null : { kind: 'url', url: form.url.trim() };
    case 'folder':
      return files.length > 0 ? { kind: 'files', files: [...files] } : null;
    default:
      return form.kind satisfies never;
  }
}

/** Whether the environment worker gets a WebGPU adapter: null while asking. */
export function useWebGpuPresent(): boolean | null {
  const [present, setPresent] = useState<boolean | null>(null);
  useEffect(() => {
    let live = true;
    envClient()
      .gpuAdapter()
      .then((a) => live && setPresent(a !== null))
      .catch(() => live && setPresent(false));
    return () => {
      live = false;
    };
  }, []);
  return present;
}
