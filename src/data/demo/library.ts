/**
 * Demo database `library`: a small city library system with authors, books, branches, members and loans.
 *
 * Fixed by hand (so questions can name them): the 16 authors, 8 genres and 6 branches. Seeded: book titles, years and
 * page counts, the 120 members and about 420 loans between 2023-01-02 and 2024-06-25, seen from "today" 2024-06-30.
 * Built-in facts the questions rely on: every author has a book in each of their genres (so every genre has books),
 * Westfield Branch opened in 2024 and has lent nothing yet, some members and some books have no loans, and recent
 * loans are often still out.
 * NULLs: authors' unknown birth years, books' unknown page counts, members' missing emails, unreturned loans.
 */
import type { Database } from 'sql.js';
import type { SqlValue } from '../../sql/types.ts';
import { pick, type Rng } from '../rng.ts';
import { addDays, chance, dayOf, distinctIntegers, emailOf, insertRows, popularityWeights, randomBetween, randomDate, uniquePeople, weightedIndex, weightedPick } from './generate.ts';
import { LIBRARY_QUESTIONS } from './library-questions.ts';
import type { DemoDatabaseSpec } from './spec.ts';

const SCHEMA = `
CREATE TABLE authors (
  author_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  country TEXT NOT NULL,
  birth_year INTEGER
);
CREATE TABLE books (
  book_id INTEGER PRIMARY KEY,
  title TEXT NOT NULL,
  author_id INTEGER NOT NULL,
  genre TEXT NOT NULL,
  published_year INTEGER NOT NULL,
  pages INTEGER,
  FOREIGN KEY (author_id) REFERENCES authors (author_id)
);
CREATE TABLE branches (
  branch_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  city TEXT NOT NULL,
  opened_year INTEGER NOT NULL
);
CREATE TABLE members (
  member_id INTEGER PRIMARY KEY,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  email TEXT,
  membership TEXT NOT NULL,
  joined_date TEXT NOT NULL,
  home_branch_id INTEGER NOT NULL,
  FOREIGN KEY (home_branch_id) REFERENCES branches (branch_id)
);
CREATE TABLE loans (
  loan_id INTEGER PRIMARY KEY,
  book_id INTEGER NOT NULL,
  member_id INTEGER NOT NULL,
  branch_id INTEGER NOT NULL,
  loan_date TEXT NOT NULL,
  due_date TEXT NOT NULL,
  return_date TEXT,
  FOREIGN KEY (book_id) REFERENCES books (book_id),
  FOREIGN KEY (member_id) REFERENCES members (member_id),
  FOREIGN KEY (branch_id) REFERENCES branches (branch_id)
);
`;

/** name, country, birth year (null: unknown), genres they write in. */
const AUTHORS: ReadonlyArray<readonly [string, string, number | null, readonly string[]]> = [
  ['Elena Marsh', 'United Kingdom', 1962, ['Mystery', 'Fiction']],
  ['Tomas Varga', 'Hungary', 1971, ['History', 'Biography']],
  ['Amara Okafor', 'Nigeria', 1985, ['Fiction', 'Poetry']],
  ['Hiroshi Tanabe', 'Japan', 1958, ['Science Fiction', 'Fiction']],
  ['Lucia Ferrante', 'Italy', 1979, ['Fiction', 'Poetry']],
  ['Daniel Brooks', 'United States', 1966, ['Mystery', 'Science Fiction']],
  ['Ingrid Solberg', 'Norway', 1990, ['Fantasy']],
  ['Rafael Quintero', 'Mexico', 1974, ['History', 'Fiction']],
  ['Priya Raman', 'India', 1988, ['Science', 'Biography']],
  ['Claire Dubois', 'France', 1955, ['Poetry', 'Fiction']],
  ['Samuel Adeyemi', 'Nigeria', null, ['History', 'Mystery']],
  ['Margaret Hale', 'United States', 1948, ['Biography', 'Fiction']],
  ['Jonas Lindqvist', 'Sweden', 1982, ['Mystery', 'Fantasy']],
  ['Sofia Alves', 'Brazil', 1993, ['Fantasy', 'Science Fiction']],
  ['Owen Gallagher', 'Ireland', null, ['Poetry', 'History']],
  ['Mei Chen', 'China', 1977, ['Science', 'Science Fiction']],
];

/** name, city, opened year. Westfield opened in June 2024 and has no loans yet. */
const BRANCHES: ReadonlyArray<readonly [string, string, number]> = [
  ['Central Library', 'Millbrook', 1921],
  ['Riverside Branch', 'Millbrook', 1968],
  ['Northgate Branch', 'Eastport', 1985],
  ['Harbor View Branch', 'Eastport', 2004],
  ['Oak Hill Branch', 'Cedar Falls', 2012],
  ['Westfield Branch', 'Cedar Falls', 2024],
];
const LENDING_BRANCHES = 5;

const ADJECTIVES = ['Silent', 'Hidden', 'Last', 'Broken', 'Golden', 'Distant', 'Forgotten', 'Crimson', 'Quiet', 'Burning', 'Winter', 'Glass', 'Iron', 'Paper', 'Midnight', 'Northern'];
const NOUNS = ['Harbor', 'Garden', 'Orchard', 'River', 'Lantern', 'Archive', 'Mountain', 'Kingdom', 'Letter', 'Bridge', 'Island', 'Compass', 'Tide', 'Forest', 'Station', 'Mirror'];
const PLACES = ['Lisbon', 'Kyoto', 'the North', 'Small Things', 'the Valley', 'Salt', 'Ashes', 'Tomorrow'];
const NONFICTION = ['A Short History of', 'The Age of', 'Inside', 'The Making of', 'Notes on'];
const SUBJECTS = ['the Atlantic', 'Empires', 'the Printing Press', 'the Silk Road', 'Modern Medicine', 'the Cell', 'Rivers', 'Revolutions', 'the Brain', 'Maps', 'Stars', 'Coffee'];

function bookTitle(rng: Rng, genre: string): string {
  if (genre === 'History' || genre === 'Biography' || genre === 'Science') return `${pick(rng, NONFICTION)} ${pick(rng, SUBJECTS)}`;
  if (genre === 'Poetry') return `${pick(rng, ADJECTIVES)} ${pick(rng, NOUNS)}s`;
  return rng.next() < 0.6 ? `The ${pick(rng, ADJECTIVES)} ${pick(rng, NOUNS)}` : `The ${pick(rng, NOUNS)} of ${pick(rng, PLACES)}`;
}

const BOOK_COUNT = 80;
const MEMBER_COUNT = 120;
const LOAN_COUNT = 420;
const TODAY = '2024-06-30';

function populate(db: Database, rng: Rng): void {
  insertRows(db, 'authors', ['author_id', 'name', 'country', 'birth_year'], AUTHORS.map(([name, country, born], i) => [i + 1, name, country, born]));
  insertRows(db, 'branches', ['branch_id', 'name', 'city', 'opened_year'], BRANCHES.map(([name, city, opened], i) => [i + 1, name, city, opened]));

  // Books: the first 32 give every author a book in their first and in their last genre (so every author and every
  // genre has books); the rest go to authors by a skewed popularity. Page counts are distinct, so "the longest"
  // never ties.
  const authorWeights = popularityWeights(rng, AUTHORS.length, 0.5);
  const titles = new Set<string>();
  const pages = distinctIntegers(rng, BOOK_COUNT, 96, 720);
  const books: SqlValue[][] = [];
  for (let i = 0; i < BOOK_COUNT; i++) {
    const author = i < 2 * AUTHORS.length ? i % AUTHORS.length : weightedIndex(rng, authorWeights);
    const [, , born, genres] = AUTHORS[author];
    const genre = i < AUTHORS.length ? genres[0] : i < 2 * AUTHORS.length ? genres[genres.length - 1] : pick(rng, genres);
    let title = bookTitle(rng, genre);
    while (titles.has(title)) title = bookTitle(rng, genre);
    titles.add(title);
    const published = randomBetween(rng, Math.max(1965, (born ?? 1950) + 23), 2023);
    books.push([i + 1, title, author + 1, genre, published, chance(rng, 0.06) ? null : pages[i]]);
  }
  insertRows(db, 'books', ['book_id', 'title', 'author_id', 'genre', 'published_year', 'pages'], books);

  // Members: a tenth never borrow (weight 0); the rest borrow with a skewed appetite.
  const people = uniquePeople(rng, MEMBER_COUNT, new Set());
  const memberWeights = popularityWeights(rng, MEMBER_COUNT, 0.6).map((w) => (chance(rng, 0.1) ? 0 : w));
  const members = people.map((p, i) => {
    const membership = weightedPick(rng, ['standard', 'student', 'premium'], [0.6, 0.25, 0.15]);
    const joined = randomDate(rng, '2016-01-04', '2024-05-31');
    const home = weightedIndex(rng, [5, 3, 3, 2, 2]) + 1;
    return [i + 1, p.first, p.last, chance(rng, 0.1) ? null : emailOf(p, 'mail.example.com'), membership, joined, home] as SqlValue[];
  });
  insertRows(db, 'members', ['member_id', 'first_name', 'last_name', 'email', 'membership', 'joined_date', 'home_branch_id'], members);

  // Loans: a few books are never borrowed; most loans happen at the member's home branch; 21-day lending period.
  const bookWeights = popularityWeights(rng, BOOK_COUNT, 0.7).map((w) => (chance(rng, 0.06) ? 0 : w));
  const loans: SqlValue[][] = [];
  for (let i = 0; i < LOAN_COUNT; i++) {
    const m = weightedIndex(rng, memberWeights);
    const joined = String(members[m][5]);
    const from = dayOf(joined) > dayOf('2023-01-02') ? joined : '2023-01-02';
    const loanDate = randomDate(rng, from, '2024-06-25');
    const branch = chance(rng, 0.7) ? Number(members[m][6]) : randomBetween(rng, 1, LENDING_BRANCHES);
    const age = dayOf(TODAY) - dayOf(loanDate);
    let returned: string | null;
    if (age < 30 ? chance(rng, 0.6) : chance(rng, 0.04)) returned = null;
    else returned = addDays(loanDate, Math.min(age, chance(rng, 0.8) ? randomBetween(rng, 3, 21) : randomBetween(rng, 22, 45)));
    loans.push([i + 1, weightedIndex(rng, bookWeights) + 1, m + 1, branch, loanDate, addDays(loanDate, 21), returned]);
  }
  // Loan ids follow the loan date, as a real system would number them.
  const ordered = [...loans].sort((a, b) => String(a[4]).localeCompare(String(b[4])) || Number(a[0]) - Number(b[0]));
  insertRows(db, 'loans', ['loan_id', 'book_id', 'member_id', 'branch_id', 'loan_date', 'due_date', 'return_date'], ordered.map((l, i) => [i + 1, ...l.slice(1)]));
}

export const LIBRARY: DemoDatabaseSpec = { id: 'library', schema: SCHEMA, populate, questions: LIBRARY_QUESTIONS };
