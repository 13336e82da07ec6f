/**
 * Cases that kill what Stryker's run over src/data/split.ts left alive (docs/mutation.md). The side of a group is
 * worked out here from the documented rule — FNV-1a 32 over the UTF-16 units of `dbId \0 normalised SQL`, train when
 * the hash mod 100 is below 70 — with FNV-1a written in BigInt (checked against its published vectors), never by
 * calling the module's hash. Keys, normalised SQL and the moves line are written by hand from the header's rules.
 */
import { describe, expect, it } from 'vitest';
import {
  cellKey,
  CURATED_DATABASES,
  formatSplitMoves,
  goldResultKey,
  linkKeys,
  normalizeGoldSql,
  PREVIOUS_SPLIT_RULE,
  splitGroups,
  splitMoves,
  sqlenvSplits,
  sqlOnlySplit,
  SPLIT_RULE,
  type SplitInput,
} from '../../src/data/split.ts';

/** FNV-1a 32 over UTF-16 code units, as its definition says, in BigInt. */
function fnv1a32(text: string): number {
  let h = 0x811c9dc5n;
  for (let i = 0; i < text.length; i++) h = ((h ^ BigInt(text.charCodeAt(i))) * 0x01000193n) & 0xffffffffn;
  return Number(h);
}

/** The side the documented rule gives a group whose canonical key is (db, normalised SQL). */
function sideOf(dbId: string, normalizedSql: string): 'train' | 'eval' {
  return fnv1a32(`${dbId}\u0000${normalizedSql}`) % 100 < 70 ? 'train' : 'eval';
}

/** `SELECT <k> FROM t` (normalised: lower case) for the first k whose hash bucket (mod 100) satisfies `want`. */
function sqlWithBucket(dbId: string, want: (bucket: number) => boolean, from = 0): string {
  for (let k = from; k < from + 20_000; k++) {
    if (want(fnv1a32(`${dbId}\u0000select ${k} from t`) % 100)) return `SELECT ${k} FROM t`;
  }
  throw new Error('no SQL found in the bucket asked for');
}

const q = (dbId: string, question: string, gold: string, goldRows: SplitInput['goldRows'], extra: Partial<SplitInput> = {}): SplitInput => ({
  dbId,
  question,
  gold,
  goldRows,
  ...extra,
});

describe('the reference hash', () => {
  it('is FNV-1a 32 (published vectors)', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });
});

describe('sqlOnlySplit and the side of a group', () => {
  it('sends bucket 69 to train and bucket 70 to eval (train is the buckets below 70)', () => {
    const at69 = sqlWithBucket('zoo', (b) => b === 69);
    const at70 = sqlWithBucket('zoo', (b) => b === 70);
    expect(sqlOnlySplit('zoo', at69, ['zoo'])).toBe('train');
    expect(sqlOnlySplit('zoo', at70, ['zoo'])).toBe('eval');
    expect(sqlenvSplits([q('zoo', 'a?', at69, [[1]]), q('zoo', 'b?', at70, [[2]])], ['zoo'])).toEqual(['train', 'eval']);
  });

  it('hashes the normalised SQL with the db id in front, so the same SQL can land apart in two databases', () => {
    for (let k = 0; k < 50; k++) {
      const sql = `  Select ${k}  FROM t ;`;
      expect(sqlOnlySplit('zoo', sql, ['zoo', 'farm'])).toBe(sideOf('zoo', `select ${k} from t`));
      expect(sqlOnlySplit('farm', sql, ['zoo', 'farm'])).toBe(sideOf('farm', `select ${k} from t`));
    }
  });

  it('holds out every database off the curated list; the default list is the ten of docs/data.md', () => {
    const documented = ['world_1', 'car_1', 'cre_Doc_Template_Mgt', 'dog_kennels', 'flight_2', 'student_transcripts_tracking', 'tvshow', 'network_1', 'concert_singer', 'pets_1'];
    expect([...CURATED_DATABASES].sort()).toEqual([...documented].sort());
    for (const db of documented) expect(sqlOnlySplit(db, 'SELECT 1')).not.toBe('heldout');
    expect(sqlOnlySplit('academic', 'SELECT 1')).toBe('heldout');
    expect(sqlOnlySplit('zoo', 'SELECT 1', ['farm'])).toBe('heldout');
  });
});

describe('normalizeGoldSql', () => {
  it.each([
    ['  SELECT  a\n\tFROM T ;; \n', 'select a from t'],
    ['SELECT 1;', 'select 1'],
    ['SELECT 1;;;', 'select 1'],
    ['SELECT 1 ;\t\n', 'select 1'],
    // Only a trailing run of ';' goes: one between statements stays.
    ['SELECT a; SELECT b', 'select a; select b'],
    ['SELECT a;x', 'select a;x'],
    ['select\u00a0a', 'select a'],
  ])('%j → %j', (sql, normalized) => {
    expect(normalizeGoldSql(sql)).toBe(normalized);
  });
});

describe('cellKey and goldResultKey', () => {
  it('tags each cell by type: null | n:<number> | s:<text> | b:<two hex digits a byte>', () => {
    expect(cellKey(null)).toBe('null');
    expect(cellKey(1.5)).toBe('n:1.5');
    expect(cellKey(-0)).toBe('n:0');
    expect(cellKey('null')).toBe('s:null');
    expect(cellKey('')).toBe('s:');
    expect(cellKey(new Uint8Array([0, 10, 255]))).toBe('b:000aff');
    expect(cellKey(new Uint8Array([]))).toBe('b:');
  });

  it('sorts cell keys and rows by UTF-16 code unit, so row and column order do not count', () => {
    // Row [2, 'a', 'B'] → keys n:2, s:a, s:B → sorted by code unit: n:2 < s:B < s:a ('B' is 66, 'a' 97).
    const row1 = JSON.stringify(['n:2', 's:B', 's:a']);
    // Row [1, 'b', 'A'] → n:1 < s:A < s:b.
    const row2 = JSON.stringify(['n:1', 's:A', 's:b']);
    const expected = JSON.stringify([row2, row1]);
    expect(goldResultKey([[2, 'a', 'B'], [1, 'b', 'A']])).toBe(expected);
    expect(goldResultKey([['A', 'b', 1], ['B', 2, 'a']])).toBe(expected);
    expect(goldResultKey([['b', 1, 'A'], ['a', 'B', 2]])).toBe(expected);
  });

  it('keeps a multiset: a repeated row counts twice, and an empty result is an empty list', () => {
    expect(goldResultKey([[1], [1]])).toBe(JSON.stringify([JSON.stringify(['n:1']), JSON.stringify(['n:1'])]));
    expect(goldResultKey([])).toBe('[]');
  });
});

describe('linkKeys', () => {
  it('gives the strict rule one SQL key and one result key, both led by the db id', () => {
    expect(linkKeys(q('zoo', 'How many pets?', 'SELECT Count(*) FROM pets;', [[9]]), PREVIOUS_SPLIT_RULE)).toEqual([
      JSON.stringify(['zoo', 'sql', 'select count(*) from pets']),
      JSON.stringify(['zoo', 'result', JSON.stringify([JSON.stringify(['n:9'])])]),
    ]);
  });

  it('adds a question key under the paraphrase rule, and none for a question without content words', () => {
    const withWords = linkKeys(q('zoo', 'How many pets?', 'SELECT 1', [[9]]), { results: 'strict', paraphrases: true, ties: false });
    expect(withWords).toHaveLength(3);
    expect(withWords[2]).toBe(JSON.stringify(['zoo', 'question', 'how many pet']));
    expect(linkKeys(q('zoo', '?', 'SELECT 1', [[9]]), { results: 'strict', paraphrases: true, ties: false })).toHaveLength(2);
  });

  it('uses answer keys under the lenient rule', () => {
    const keys = linkKeys(q('zoo', '?', 'SELECT 1', [[9]]), { results: 'lenient', paraphrases: false, ties: false });
    expect(keys[0]).toBe(JSON.stringify(['zoo', 'sql', 'select 1']));
    expect(keys.length).toBeGreaterThan(1);
    for (const key of keys.slice(1)) expect((JSON.parse(key) as string[]).slice(0, 2)).toEqual(['zoo', 'answer']);
  });

  it('is the lenient rule with paraphrases and ties by default', () => {
    expect(SPLIT_RULE).toEqual({ results: 'lenient', paraphrases: true, ties: true });
    expect(PREVIOUS_SPLIT_RULE).toEqual({ results: 'strict', paraphrases: false, ties: false });
  });
});

describe('splitGroups', () => {
  it('joins by each link and closes the groups transitively, in order of first member', () => {
    const questions = [
      q('zoo', 'List the cats.', 'SELECT a FROM t', [['Tom']]), // 0
      q('zoo', 'Count the owners.', 'SELECT b FROM t', [[4]]), // 1
      q('zoo', 'Show the cat list.', 'select  A from T;', [['Rex']]), // 2: SQL as 0
      q('zoo', 'How many dogs?', 'SELECT c FROM t', [['4']]), // 3: answer as 1 (4 and '4')
      q('zoo', 'Which is the oldest dog?', 'SELECT d FROM t', [['Rex']]), // 4: result as 2
      q('farm', 'List the cats.', 'SELECT a FROM t', [['Tom']]), // 5: another database
      q('zoo', '?', 'SELECT e FROM t', [[7]]), // 6: no content words
      q('zoo', '!', 'SELECT f FROM t', [[8]]), // 7: no content words either, shares nothing with 6
    ];
    expect(splitGroups(questions, ['zoo', 'farm'])).toEqual([[0, 2, 4], [1, 3], [5], [6], [7]]);
    expect(splitGroups(questions, ['zoo'])).toEqual([[0, 2, 4], [1, 3], [6], [7]]);
    // The previous rule: strict results (4 and '4' differ) and no paraphrases.
    expect(splitGroups(questions, ['zoo'], PREVIOUS_SPLIT_RULE)).toEqual([[0, 2, 4], [1], [3], [6], [7]]);
  });

  it('joins paraphrased questions only under the paraphrase rule', () => {
    const questions = [q('zoo', 'How many pets are there?', 'SELECT a FROM t', [[1]]), q('zoo', 'How many pets?', 'SELECT b FROM t', [[2]])];
    expect(splitGroups(questions, ['zoo'])).toEqual([[0, 1]]);
    expect(splitGroups(questions, ['zoo'], { results: 'lenient', paraphrases: false, ties: true })).toEqual([[0], [1]]);
  });

  it('joins a question whose gold ties make another gold a legal result, only under the tie rule', () => {
    const ties = { segments: [{ take: 1, pool: [['Delta'], ['United']] }] };
    const questions = [q('zoo', 'Which airline is named first?', 'SELECT a FROM t', [['United']]), q('zoo', 'Which airline has the most flights?', 'SELECT b FROM t', [['Delta']], { goldTies: ties })];
    expect(splitGroups(questions, ['zoo'])).toEqual([[0, 1]]);
    expect(splitGroups(questions, ['zoo'], { results: 'lenient', paraphrases: true, ties: false })).toEqual([[0], [1]]);
    expect(splitGroups(questions, ['farm'])).toEqual([]);
  });

  it('finds the root of a long chain joined in an order that makes deep trees', () => {
    // Question k shares its SQL with k − 1 and its result with k + 1 alternately, so unions arrive out of order.
    const n = 40;
    const questions = Array.from({ length: n }, (_, k) =>
      q('zoo', '?', `SELECT ${Math.floor(k / 2)} FROM t`, [[`r${Math.floor((k + 1) / 2)}`]]),
    );
    expect(splitGroups(questions.reverse(), ['zoo'])).toEqual([Array.from({ length: n }, (_, k) => k)]);
  });
});

describe('sqlenvSplits', () => {
  it("decides a group by its smallest normalised SQL, whichever question comes first", () => {
    // Two SQLs on opposite sides; the group takes the side of the one that sorts first (code-unit order).
    const trainSql = sqlWithBucket('zoo', (b) => b < 70);
    const evalSql = sqlWithBucket('zoo', (b) => b >= 70);
    const smaller = normalizeGoldSql(trainSql) < normalizeGoldSql(evalSql) ? trainSql : evalSql;
    const larger = smaller === trainSql ? evalSql : trainSql;
    const side = sideOf('zoo', normalizeGoldSql(smaller));
    const questions = [q('zoo', '?', larger, [['x']]), q('zoo', '!', smaller, [['X']])];
    expect(sqlenvSplits(questions, ['zoo'])).toEqual([side, side]);
    expect(sqlenvSplits([...questions].reverse(), ['zoo'])).toEqual([side, side]);
  });

  it('leaves questions off the curated databases held out', () => {
    expect(sqlenvSplits([q('farm', '?', 'SELECT 1', [[1]])], ['zoo'])).toEqual(['heldout']);
  });
});

describe('splitMoves and formatSplitMoves', () => {
  it('counts the questions whose split differs from the SQL-only rule, each way', () => {
    const toTrain = sqlWithBucket('zoo', (b) => b < 70);
    const toEval = sqlWithBucket('zoo', (b) => b >= 70);
    const qs = [q('zoo', '?', toTrain, [[1]]), q('zoo', '?', toEval, [[1]]), q('zoo', '?', toEval, [[1]]), q('farm', '?', toEval, [[1]])];
    // Against a split that puts all four in train / all four in eval.
    expect(splitMoves(qs, ['train', 'train', 'train', 'train'], ['zoo'])).toEqual({ trainToEval: 0, evalToTrain: 2 });
    expect(splitMoves(qs, ['eval', 'eval', 'eval', 'eval'], ['zoo'])).toEqual({ trainToEval: 1, evalToTrain: 0 });
    expect(splitMoves(qs, ['heldout', 'heldout', 'heldout', 'heldout'], ['zoo'])).toEqual({ trainToEval: 0, evalToTrain: 0 });
    // Each question where the SQL-only rule put it: nothing moved (a train question staying in train is no move).
    expect(splitMoves(qs, ['train', 'eval', 'eval', 'heldout'], ['zoo'])).toEqual({ trainToEval: 0, evalToTrain: 0 });
  });

  it('writes the report line with the total and each direction', () => {
    expect(formatSplitMoves({ trainToEval: 2, evalToTrain: 1 })).toBe(
      'split: 3 questions moved relative to the SQL-only rule (2 train → eval, 1 eval → train), by grouping equal answers and paraphrases',
    );
  });
});
