/**
 * The ANSWER observation says how the environment read the answer, right or wrong (issue 21), and the environment
 * accepts a form the old reader refused (`[(2,)]`, a header line) end to end.
 */
import { describe, expect, it } from 'vitest';
import { SqlEnv } from '../../src/env/env.ts';
import { useTinyDataset } from '../fixtures/tiny-dataset.ts';

const tiny = useTinyDataset();
const answer = async (questionId: string, value: string): Promise<{ text: string; correct: boolean | null | undefined }> => {
  const env = new SqlEnv(tiny.dataset, tiny.executor);
  await env.reset({ questionId });
  const r = await env.step(`ANSWER ${value}`);
  return { text: r.observation.text, correct: r.info.correct };
};

describe('ANSWER observation', () => {
  it('says how a right answer was read', async () => {
    const r = await answer('tiny-1', '[(5,)]');
    expect(r.correct).toBe(true);
    expect(r.text).toContain('Answer submitted: correct. Read as 1 row × 1 column (Python repr): 5');
  });

  it('says how a wrong answer was read', async () => {
    const r = await answer('tiny-2', 'Ana\nBo');
    expect(r.correct).toBe(false);
    expect(r.text).toContain('Answer submitted: incorrect. Read as 2 values (one per line): Ana; Bo');
  });

  it('reads a header line that names the result columns', async () => {
    const r = await answer('tiny-3', 'name,age\nDi,52\nBo,45\nEd,39\nAna,31\nCy,28');
    expect(r.correct).toBe(true);
    expect(r.text).toContain('Read as 5 rows × 2 columns (comma-separated, first line as the header): Di | 52; Bo | 45; Ed | 39; Ana | 31; …');
  });
});
