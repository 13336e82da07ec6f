/**
 * The Model panel's persisted form (src/ui/store/model-form.ts): a form saved by an older build is completed, and the
 * form names the source the panel loads (a local folder only with files picked in this page).
 */
import { describe, expect, it } from 'vitest';
import { completeModelForm, DEFAULT_MODEL_FORM, DEFAULT_MODEL_SETTINGS, modelFormSource } from '../../../src/ui/store/model-form.ts';

describe('completeModelForm', () => {
  it('fills what a saved form lacks, keeping what it has', () => {
    expect(completeModelForm(undefined)).toEqual(DEFAULT_MODEL_FORM);
    const form = completeModelForm({ kind: 'url', url: 'models/tiny/', settings: { ...DEFAULT_MODEL_SETTINGS, maxNewTokens: 16 } });
    expect(form).toMatchObject({ kind: 'url', url: 'models/tiny/', repo: DEFAULT_MODEL_FORM.repo });
    expect(form.settings).toEqual({ ...DEFAULT_MODEL_SETTINGS, maxNewTokens: 16 });
    expect(completeModelForm({ settings: { temperature: 0 } as never }).settings).toEqual({ ...DEFAULT_MODEL_SETTINGS, temperature: 0 });
  });
});

describe('modelFormSource', () => {
  it.each([
    [{ kind: 'url', url: ' models/tiny/ ' }, { kind: 'url', url: 'models/tiny/' }],
    [{ kind: 'url', url: '  ' }, null],
    [{ kind: 'hub', repo: 'Qwen/Qwen3-0.6B' }, { kind: 'hub', repo: 'Qwen/Qwen3-0.6B' }],
    [{ kind: 'hub', repo: 'Qwen/Qwen3-0.6B', mirror: 'https://hf-mirror.com' }, { kind: 'hub', repo: 'Qwen/Qwen3-0.6B', base: 'https://hf-mirror.com' }],
    [{ kind: 'hub', repo: '' }, null],
    [{ kind: 'folder' }, null],
  ] as const)('%j → %j', (patch, source) => expect(modelFormSource(completeModelForm(patch), [])).toEqual(source));

  it('a local folder needs its files picked in this page', () => {
    const files = [{ path: 'tiny/config.json', data: new Blob(['{}']) }];
    expect(modelFormSource(completeModelForm({ kind: 'folder' }), files)).toEqual({ kind: 'files', files });
  });
});
