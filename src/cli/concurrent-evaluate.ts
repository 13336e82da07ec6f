/**
 * `evaluateConcurrently` moved to src/eval/evaluate-concurrently.ts (the page's Evaluate uses it too); re-exported
 * here for the CLI's imports.
 */
export { evaluateConcurrently } from '../eval/evaluate-concurrently.ts';
