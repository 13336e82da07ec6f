/**
 * The mark a model with random weights carries, so that wherever it plays the page can say "random test weights:
 * expect nonsense" instead of letting gibberish pass for a broken engine or a bad policy.
 *
 * The mark is one extra field of config.json, `"sqlenv_test_model": { "weights": "random", "generator": …, "seed": … }`,
 * written by `writeTinyModel` (files-node.ts, behind `npm run model:tiny`). config.json is the one file every loader
 * reads first (Hub, served folder, local folder, transformers.js), so no source needs another request, and Hugging
 * Face's own loaders ignore fields they do not know.
 *
 * config.json is untrusted: `readTestModelMarker` never throws. No field: a real model (null). A field that is not
 * the object the generator writes: still marked (someone meant to say so), with `problem` saying what is wrong and
 * no detail trusted. Text is cut short and stripped of control characters before anything shows it.
 */

/** The config.json field that marks a test model. */
export const TEST_MODEL_FIELD = 'sqlenv_test_model';

/** What the mark says about a model whose config.json carries it. */
export interface TestModelMarker {
  /** What wrote the weights (e.g. "npm run model:tiny"); null when the mark does not say or is malformed. */
  generator: string | null;
  /** The generator's seed, an integer in [0, 2^32); null when absent or malformed. */
  seed: number | null;
  /** What is wrong when the field is present but not as the generator writes it; the model still counts as a test model. */
  problem: string | null;
}

/** The words the page shows wherever a marked model plays. */
export const TEST_WEIGHTS_NOTICE = 'Random test weights: expect nonsense.';

/** Longest generator name kept from an untrusted file. */
const MAX_TEXT = 80;
const MAX_SEED = 0xffffffff;

/** The field's value as the generator writes it. */
export function testModelMarkerJson(generator: string, seed: number | null): Record<string, unknown> {
  return { weights: 'random', generator, ...(seed === null ? {} : { seed }) };
}

function cleanText(value: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed here
  const plain = value.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').trim();
  return plain.length > MAX_TEXT ? `${plain.slice(0, MAX_TEXT)}…` : plain;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The mark of a parsed config.json: null for a model without one; never throws. */
export function readTestModelMarker(configJson: unknown): TestModelMarker | null {
  if (!isRecord(configJson) || !Object.hasOwn(configJson, TEST_MODEL_FIELD)) return null;
  const mark = configJson[TEST_MODEL_FIELD];
  if (!isRecord(mark)) return { generator: null, seed: null, problem: 'it is not an object' };
  const problems: string[] = [];
  if (mark.weights !== 'random') problems.push('"weights" is not "random"');
  let generator: string | null = null;
  if (typeof mark.generator === 'string' && cleanText(mark.generator) !== '') generator = cleanText(mark.generator);
  else problems.push('"generator" is not a text');
  let seed: number | null = null;
  if (mark.seed !== undefined) {
    if (typeof mark.seed === 'number' && Number.isInteger(mark.seed) && mark.seed >= 0 && mark.seed <= MAX_SEED) seed = mark.seed;
    else problems.push('"seed" is not an integer in [0, 2^32)');
  }
  return { generator, seed, problem: problems.length === 0 ? null : problems.join(', ') };
}

/** One line for a marked model: the notice, then what made it (or what is wrong with the mark). */
export function describeTestModel(marker: TestModelMarker): string {
  if (marker.problem !== null) return `${TEST_WEIGHTS_NOTICE} (config.json marks this model as a test model, but its "${TEST_MODEL_FIELD}" field is malformed: ${marker.problem}.)`;
  const seed = marker.seed === null ? '' : `, seed ${marker.seed}`;
  return `${TEST_WEIGHTS_NOTICE} (Written by ${marker.generator ?? 'a generator'}${seed}: it is for testing the machinery, not for answering questions.)`;
}
