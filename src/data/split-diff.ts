/**
 * What a change of split rule moved, for `npm run data:split-report` and docs/split.md: the questions that changed
 * side, the groups they moved with and the links that joined those groups, and every pair of questions the
 * paraphrase rule joins (so a reader can judge the rule pair by pair). Pure and serialisable, like spider-report.ts.
 */
import { questionWords } from './paraphrase.ts';
import { tieLinks } from './tie-links.ts';
import { CURATED_DATABASES, linkKeys, PREVIOUS_SPLIT_RULE, SPLIT_RULE, sqlenvSplits, splitGroups, type SplitInput, type SplitRule } from './split.ts';
import type { Split } from './types.ts';

/** A question as the report reads it. */
export interface DiffInput extends SplitInput {
  id: string;
}

/** A question that changed side. */
export interface MovedQuestion {
  id: string;
  dbId: string;
  from: Split;
  to: Split;
}

/** Two questions of one group that share a link key, and the kind of key (`sql`, `answer`, `result`, `question`, `tie`). */
export interface GroupLink {
  kind: string;
  ids: string[];
}

/** A group under the new rule with a moved question in it: its members (old and new side) and its links. */
export interface ChangedGroup {
  dbId: string;
  members: MovedQuestion[];
  links: GroupLink[];
}

export interface SplitDiff {
  moved: MovedQuestion[];
  /** Moved questions per database, each way. */
  movedByDatabase: Record<string, { trainToEval: number; evalToTrain: number }>;
  changedGroups: ChangedGroup[];
  /**
   * Every set of ≥ 2 questions of one database with the same content words (all databases, curated or not);
   * `onlyByText` when the SQL and answer links alone would not put the set in one group.
   */
  paraphraseSets: Array<{ dbId: string; words: string; ids: string[]; onlyByText: boolean }>;
  groups: { before: number; after: number };
}

/** What moving from `before` to `after` changes on `questions` (defaults: the previous and the current rule). */
export function splitDiff(
  questions: readonly DiffInput[],
  curated: readonly string[] = CURATED_DATABASES,
  before: SplitRule = PREVIOUS_SPLIT_RULE,
  after: SplitRule = SPLIT_RULE,
): SplitDiff {
  const old = sqlenvSplits(questions, curated, before);
  const now = sqlenvSplits(questions, curated, after);
  const moveOf = (i: number): MovedQuestion => ({ id: questions[i].id, dbId: questions[i].dbId, from: old[i], to: now[i] });
  const moved: MovedQuestion[] = [];
  const movedByDatabase: SplitDiff['movedByDatabase'] = {};
  questions.forEach((q, i) => {
    if (old[i] === now[i]) return;
    moved.push(moveOf(i));
    const row = (movedByDatabase[q.dbId] ??= { trainToEval: 0, evalToTrain: 0 });
    if (old[i] === 'train') row.trainToEval++;
    else row.evalToTrain++;
  });

  const newGroups = splitGroups(questions, curated, after);
  const changedGroups = newGroups
    .filter((group) => group.some((i) => old[i] !== now[i]))
    .map((group) => ({ dbId: questions[group[0]].dbId, members: group.map(moveOf), links: groupLinks(questions, group, after) }));

  // Groups without the text links, over every database, to tell which paraphrase sets only the text joins.
  const everyDb = [...new Set(questions.map((q) => q.dbId))];
  const groupOf = new Map<string, number>();
  splitGroups(questions, everyDb, { ...after, paraphrases: false }).forEach((group, g) => group.forEach((i) => groupOf.set(questions[i].id, g)));
  const sets = new Map<string, { dbId: string; words: string; ids: string[]; onlyByText: boolean }>();
  for (const q of questions) {
    const words = questionWords(q.question);
    if (words === '') continue;
    const key = JSON.stringify([q.dbId, words]);
    const set = sets.get(key);
    if (set) set.ids.push(q.id);
    else sets.set(key, { dbId: q.dbId, words, ids: [q.id], onlyByText: false });
  }
  const paraphraseSets = [...sets.values()].filter((s) => s.ids.length > 1);
  for (const set of paraphraseSets) set.onlyByText = new Set(set.ids.map((id) => groupOf.get(id))).size > 1;

  return { moved, movedByDatabase, changedGroups, paraphraseSets, groups: { before: splitGroups(questions, curated, before).length, after: newGroups.length } };
}

/** The link keys two or more members of `group` share, with their kind. */
function groupLinks(questions: readonly DiffInput[], group: readonly number[], rule: SplitRule): GroupLink[] {
  const byKey = new Map<string, string[]>();
  for (const i of group) {
    for (const key of linkKeys(questions[i], rule)) {
      const ids = byKey.get(key);
      if (ids) ids.push(questions[i].id);
      else byKey.set(key, [questions[i].id]);
    }
  }
  const links: GroupLink[] = [];
  for (const [key, ids] of byKey) {
    // linkKeys writes JSON [dbId, kind, value].
    if (ids.length > 1) links.push({ kind: (JSON.parse(key) as [string, string, string])[1], ids: [...new Set(ids)] });
  }
  if (rule.ties) {
    const members = group.map((i) => questions[i]);
    for (const [a, b] of tieLinks(members)) links.push({ kind: 'tie', ids: [members[a].id, members[b].id] });
  }
  return links;
}

/** The diff as text: moved questions with their groups and links, per-database counts, paraphrase sets. */
export function formatSplitDiff(diff: SplitDiff, questionText: (id: string) => string): string {
  const lines: string[] = [];
  const ways = (from: Split, to: Split): MovedQuestion[] => diff.moved.filter((m) => m.from === from && m.to === to);
  lines.push(`groups: ${diff.groups.before} before, ${diff.groups.after} after`);
  lines.push(`moved: ${diff.moved.length} questions (${ways('train', 'eval').length} train → eval, ${ways('eval', 'train').length} eval → train)`);
  for (const [from, to] of [['train', 'eval'], ['eval', 'train']] as const) {
    const ids = ways(from, to).map((m) => m.id);
    lines.push(`  ${from} → ${to}: ${ids.length === 0 ? '(none)' : ids.join(', ')}`);
  }
  lines.push('', 'moved per database (train → eval, eval → train):');
  if (diff.moved.length === 0) lines.push('  (none)');
  for (const db of Object.keys(diff.movedByDatabase).sort()) {
    const row = diff.movedByDatabase[db];
    lines.push(`  ${db}: ${row.trainToEval}, ${row.evalToTrain}`);
  }
  lines.push('', 'groups with a moved question (old side → new side), and the links that join them:');
  if (diff.changedGroups.length === 0) lines.push('  (none)');
  for (const group of diff.changedGroups) {
    lines.push(`  ${group.dbId}:`);
    for (const m of group.members) lines.push(`    ${m.id} ${m.from} → ${m.to}  ${questionText(m.id)}`);
    for (const link of group.links) lines.push(`    link ${link.kind}: ${link.ids.join(' ~ ')}`);
  }
  const onlyByText = diff.paraphraseSets.filter((s) => s.onlyByText).length;
  lines.push('', `paraphrase rule: ${diff.paraphraseSets.length} sets of questions with the same content words (every database; * = ${onlyByText} sets that only the text joins):`);
  for (const set of diff.paraphraseSets) {
    lines.push(`  ${set.onlyByText ? '*' : ' '} ${set.dbId} [${set.words}]`);
    for (const id of set.ids) lines.push(`    ${id}  ${questionText(id)}`);
  }
  return lines.join('\n');
}
