/**
 * The paraphrase rule of the split: two questions of one database are paraphrases when they ask with the same
 * content words, in any order. Spider asks most queries twice in other words; when its two gold SQLs disagree (dev
 * 776 "Which Asian countries have a population that is larger than any country in Africa?" uses max, 777 "What are
 * the Asian countries which have a population larger than that of any country in Africa?" uses min), neither the SQL
 * nor the result links them, and the texts must.
 *
 * `questionWords` reduces a question to its content words:
 *   1. lower-case; every character other than a–z and 0–9 becomes a space (punctuation, quotes, apostrophes);
 *   2. drop STOP_WORDS: articles, auxiliaries, pronouns, prepositions, question words, and the imperative verbs a
 *      request opens with (show, list, give, find, return, tell): they say how something is asked, not what;
 *   3. map comparative synonyms to one word (COMPARATIVES: larger/bigger/greater/higher → more,
 *      smaller/fewer/lower → less);
 *   4. a plural to its singular: -ies → -y, else a final s after three or more letters that is not -ss;
 *   5. the distinct words, sorted, joined by one space.
 * Questions with equal non-empty words are paraphrases. Equality, not a similarity threshold: on Spider dev a token
 * Jaccard of 0.7–0.8 already pairs different questions ("the courses they teach" / "the number of courses they
 * teach", "playing some cartoon" / "not playing any cartoon"). Negations, quantifiers, numbers, aggregates and quoted
 * values are content words, so those differences keep questions apart. `npm run data:split-report` prints every
 * pair the rule joins on the data it reads, so the rule can be judged pair by pair (docs/split.md lists Spider dev).
 */

/** Words that carry how a question is asked, not what it asks (rule 2). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the what which who whom whose is are was were be been being do does did of in on at for to by with from ' +
    'that than this these those there their its it have has had and me us i you we can could would will please ' +
    'give show list find return tell'
  ).split(' '),
);

/** Comparatives that ask the same thing (rule 3). */
export const COMPARATIVES: Readonly<Record<string, string>> = {
  larger: 'more',
  bigger: 'more',
  greater: 'more',
  higher: 'more',
  smaller: 'less',
  fewer: 'less',
  lower: 'less',
};

/** A word's singular (rule 4). */
function singular(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** A question's content words, distinct and sorted, joined by spaces (the rule in the header); '' when it has none. */
export function questionWords(question: string): string {
  const words = question
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .split(' ')
    .filter((w) => w !== '' && !STOP_WORDS.has(w))
    .map((w) => singular(COMPARATIVES[w] ?? w));
  return [...new Set(words)].sort().join(' ');
}
