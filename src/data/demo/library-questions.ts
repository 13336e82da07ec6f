/**
 * Questions on the demo `library` database, each with hand-written gold SQL in Spider's style (T1/T2 aliases,
 * lower-case aggregates). Literals name only the fixed parts of the data (authors, genres, branches, membership
 * kinds), so every question stays answerable whatever the seed. Order in this list gives the ids
 * (`demo-library-001` …): append new questions, never insert or reorder.
 */
import type { DemoQuestionSpec } from './spec.ts';

export const LIBRARY_QUESTIONS: readonly DemoQuestionSpec[] = [
  { question: 'How many books does the library have?', gold: 'SELECT count(*) FROM books' },
  { question: 'What are the names of the authors from Nigeria?', gold: "SELECT name FROM authors WHERE country = 'Nigeria'" },
  { question: 'List the titles of all poetry books.', gold: "SELECT title FROM books WHERE genre = 'Poetry'" },
  { question: 'How many members have a premium membership?', gold: "SELECT count(*) FROM members WHERE membership = 'premium'" },
  { question: 'Which cities have a library branch? List each city once.', gold: 'SELECT DISTINCT city FROM branches' },
  { question: 'How many loans have not been returned yet?', gold: 'SELECT count(*) FROM loans WHERE return_date IS NULL' },
  { question: 'How many members have no email address on file?', gold: 'SELECT count(*) FROM members WHERE email IS NULL' },
  { question: 'How many books are there in each genre?', gold: 'SELECT genre, count(*) FROM books GROUP BY genre' },
  {
    question: 'What are the titles of the books written by Elena Marsh?',
    gold: "SELECT T1.title FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id WHERE T2.name = 'Elena Marsh'",
  },
  { question: 'What are the first and last names of the members who joined in 2023?', gold: "SELECT first_name, last_name FROM members WHERE joined_date LIKE '2023%'" },
  { question: 'What are the titles and page counts of the five longest books?', gold: 'SELECT title, pages FROM books ORDER BY pages DESC LIMIT 5' },
  { question: 'What is the name and opening year of the oldest branch?', gold: 'SELECT name, opened_year FROM branches ORDER BY opened_year LIMIT 1' },
  {
    question: 'How many books were published before 1980 or have more than 600 pages?',
    gold: 'SELECT count(*) FROM books WHERE published_year < 1980 OR pages > 600',
  },
  {
    question: 'What are the average, shortest and longest page counts of fantasy books?',
    gold: "SELECT avg(pages), min(pages), max(pages) FROM books WHERE genre = 'Fantasy'",
  },
  {
    question: 'List the names and countries of the authors born after 1980, from the oldest to the youngest.',
    gold: 'SELECT name, country FROM authors WHERE birth_year > 1980 ORDER BY birth_year',
  },
  { question: 'Which countries have more than one author?', gold: 'SELECT country FROM authors GROUP BY country HAVING count(*) > 1' },
  {
    question: 'Which authors have written more than five books? Give their names.',
    gold: 'SELECT T2.name FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id GROUP BY T1.author_id HAVING count(*) > 5',
  },
  {
    question: 'What are the first and last names of the members who have never borrowed a book?',
    gold: 'SELECT first_name, last_name FROM members WHERE member_id NOT IN (SELECT member_id FROM loans)',
  },
  { question: 'Which branches have never lent a book?', gold: 'SELECT name FROM branches WHERE branch_id NOT IN (SELECT branch_id FROM loans)' },
  {
    question: 'What are the titles of the books that are longer than the average book?',
    gold: 'SELECT title FROM books WHERE pages > (SELECT avg(pages) FROM books)',
  },
  {
    question: 'Which genres have books by both an author from Nigeria and an author from the United States?',
    gold: "SELECT T1.genre FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id WHERE T2.country = 'Nigeria' INTERSECT SELECT T1.genre FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id WHERE T2.country = 'United States'",
  },
  {
    question: 'What are the first and last names of the member who has borrowed books the most times?',
    gold: 'SELECT T2.first_name, T2.last_name FROM loans AS T1 JOIN members AS T2 ON T1.member_id = T2.member_id GROUP BY T1.member_id ORDER BY count(*) DESC LIMIT 1',
  },
  {
    question: 'For each branch, how many loans has it made? List the branch names from the busiest to the quietest.',
    gold: 'SELECT T2.name, count(*) FROM loans AS T1 JOIN branches AS T2 ON T1.branch_id = T2.branch_id GROUP BY T1.branch_id ORDER BY count(*) DESC',
  },
  {
    question: 'Which genre has been borrowed most often?',
    gold: 'SELECT T1.genre FROM books AS T1 JOIN loans AS T2 ON T1.book_id = T2.book_id GROUP BY T1.genre ORDER BY count(*) DESC LIMIT 1',
  },
  {
    question: 'What are the distinct titles of the books that student members borrowed at the Central Library?',
    gold: "SELECT DISTINCT T1.title FROM books AS T1 JOIN loans AS T2 ON T1.book_id = T2.book_id JOIN members AS T3 ON T2.member_id = T3.member_id JOIN branches AS T4 ON T2.branch_id = T4.branch_id WHERE T3.membership = 'student' AND T4.name = 'Central Library'",
  },
  {
    question: 'Which author\'s books have been borrowed the most times in total? Give the author\'s name.',
    gold: 'SELECT T3.name FROM loans AS T1 JOIN books AS T2 ON T1.book_id = T2.book_id JOIN authors AS T3 ON T2.author_id = T3.author_id GROUP BY T3.author_id ORDER BY count(*) DESC LIMIT 1',
  },
  {
    question: 'List the names of the authors who are from Japan or who have written a poetry book.',
    gold: "SELECT name FROM authors WHERE country = 'Japan' UNION SELECT T2.name FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id WHERE T1.genre = 'Poetry'",
  },
  {
    question: 'Which authors have written mystery books but no fiction books? Give their names.',
    gold: "SELECT T2.name FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id WHERE T1.genre = 'Mystery' EXCEPT SELECT T2.name FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id WHERE T1.genre = 'Fiction'",
  },
  {
    question: 'How many loans were returned after their due date?',
    gold: 'SELECT count(*) FROM loans WHERE return_date > due_date',
  },
  {
    question: 'For each membership type, what is the average number of days a returned loan was kept, rounded to one decimal?',
    gold: 'SELECT T2.membership, round(avg(julianday(T1.return_date) - julianday(T1.loan_date)), 1) FROM loans AS T1 JOIN members AS T2 ON T1.member_id = T2.member_id WHERE T1.return_date IS NOT NULL GROUP BY T2.membership',
  },
  {
    question: 'What are the first and last names of the members who have borrowed books at both the Central Library and the Riverside Branch?',
    gold: "SELECT T1.first_name, T1.last_name FROM members AS T1 JOIN loans AS T2 ON T1.member_id = T2.member_id JOIN branches AS T3 ON T2.branch_id = T3.branch_id WHERE T3.name = 'Central Library' INTERSECT SELECT T1.first_name, T1.last_name FROM members AS T1 JOIN loans AS T2 ON T1.member_id = T2.member_id JOIN branches AS T3 ON T2.branch_id = T3.branch_id WHERE T3.name = 'Riverside Branch'",
  },
  {
    question: 'How many different members borrowed a science fiction book in 2023?',
    gold: "SELECT count(DISTINCT T1.member_id) FROM loans AS T1 JOIN books AS T2 ON T1.book_id = T2.book_id WHERE T2.genre = 'Science Fiction' AND T1.loan_date LIKE '2023%'",
  },
  {
    question: 'What are the titles of the books that have never been borrowed?',
    gold: 'SELECT title FROM books WHERE book_id NOT IN (SELECT book_id FROM loans)',
  },
];
