/**
 * Counts in words: `plural(1, 'row')` is "1 row", `plural(2, 'row')` "2 rows", `plural(1200, 'step')` "1,200 steps".
 * One place for the rule so no view writes "(1 rows)" or "1 steps". Irregular plurals pass their own form
 * (`plural(n, 'micro-batch', 'micro-batches')`). Only 1 (and -1) is singular: "0 rows", "1.5 steps".
 */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${Math.abs(n) === 1 ? one : many}`;
}
