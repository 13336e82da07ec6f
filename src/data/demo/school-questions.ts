/**
 * Questions on the demo `school` database, each with hand-written gold SQL in Spider's style. Literals name only the
 * fixed parts of the data (departments, buildings, course codes and titles, semesters). Grades are NULL while a
 * course is in progress, and SQL's avg() skips them, as a registrar would. Order gives the ids (`demo-school-001`
 * …): append only.
 */
import type { DemoQuestionSpec } from './spec.ts';

export const SCHOOL_QUESTIONS: readonly DemoQuestionSpec[] = [
  { question: 'How many students are there?', gold: 'SELECT count(*) FROM students' },
  { question: 'What are the titles of the courses worth four credits?', gold: 'SELECT title FROM courses WHERE credits = 4' },
  { question: 'In which building is the Physics department?', gold: "SELECT building FROM departments WHERE name = 'Physics'" },
  { question: 'How many students have not declared a major?', gold: 'SELECT count(*) FROM students WHERE major_department_id IS NULL' },
  { question: 'What is the highest salary paid to a teacher?', gold: 'SELECT max(salary) FROM teachers' },
  { question: 'What are the titles of the courses that have no teacher assigned?', gold: 'SELECT title FROM courses WHERE teacher_id IS NULL' },
  {
    question: 'What are the names and budgets of all departments, from the largest budget to the smallest?',
    gold: 'SELECT name, budget FROM departments ORDER BY budget DESC',
  },
  {
    question: 'How many courses does each department offer? Give the department name and the count.',
    gold: 'SELECT T2.name, count(*) FROM courses AS T1 JOIN departments AS T2 ON T1.department_id = T2.department_id GROUP BY T2.name',
  },
  {
    question: 'What are the first and last names of the teachers in the Computer Science department?',
    gold: "SELECT T1.first_name, T1.last_name FROM teachers AS T1 JOIN departments AS T2 ON T1.department_id = T2.department_id WHERE T2.name = 'Computer Science'",
  },
  { question: 'What are the codes and titles of the courses whose title starts with "Introduction"?', gold: "SELECT code, title FROM courses WHERE title LIKE 'Introduction%'" },
  { question: 'How many students enrolled in each year? List the years in order.', gold: 'SELECT enrollment_year, count(*) FROM students GROUP BY enrollment_year ORDER BY enrollment_year' },
  {
    question: 'Who are the three longest-serving teachers? Give their first and last names and hire dates, earliest first.',
    gold: 'SELECT first_name, last_name, hire_date FROM teachers ORDER BY hire_date LIMIT 3',
  },
  {
    question: 'What is the average grade in Linear Algebra?',
    gold: "SELECT avg(T1.grade) FROM enrollments AS T1 JOIN courses AS T2 ON T1.course_id = T2.course_id WHERE T2.title = 'Linear Algebra'",
  },
  {
    question: 'How many students were born in 2003 or enrolled in 2021?',
    gold: "SELECT count(*) FROM students WHERE birth_date LIKE '2003%' OR enrollment_year = 2021",
  },
  {
    question: 'Which teacher earns the most? Give the first name, last name and salary.',
    gold: 'SELECT first_name, last_name, salary FROM teachers ORDER BY salary DESC LIMIT 1',
  },
  {
    question: 'What are the titles of the courses that nobody has enrolled in?',
    gold: 'SELECT title FROM courses WHERE course_id NOT IN (SELECT course_id FROM enrollments)',
  },
  {
    question: 'What are the first and last names of the teachers who earn more than the average teacher salary?',
    gold: 'SELECT first_name, last_name FROM teachers WHERE salary > (SELECT avg(salary) FROM teachers)',
  },
  {
    question: 'Which courses have more than 30 enrollments? Give their titles.',
    gold: 'SELECT T2.title FROM enrollments AS T1 JOIN courses AS T2 ON T1.course_id = T2.course_id GROUP BY T1.course_id HAVING count(*) > 30',
  },
  {
    question: 'Which department has the most students majoring in it? Give its name.',
    gold: 'SELECT T2.name FROM students AS T1 JOIN departments AS T2 ON T1.major_department_id = T2.department_id GROUP BY T2.department_id ORDER BY count(*) DESC LIMIT 1',
  },
  {
    question: 'What are the first and last names of the students who have taken both a Mathematics course and a Computer Science course?',
    gold: "SELECT T1.first_name, T1.last_name FROM students AS T1 JOIN enrollments AS T2 ON T1.student_id = T2.student_id JOIN courses AS T3 ON T2.course_id = T3.course_id JOIN departments AS T4 ON T3.department_id = T4.department_id WHERE T4.name = 'Mathematics' INTERSECT SELECT T1.first_name, T1.last_name FROM students AS T1 JOIN enrollments AS T2 ON T1.student_id = T2.student_id JOIN courses AS T3 ON T2.course_id = T3.course_id JOIN departments AS T4 ON T3.department_id = T4.department_id WHERE T4.name = 'Computer Science'",
  },
  {
    question: 'Which students are taking courses in 2024-Fall but took none in 2024-Spring? Give their first and last names.',
    gold: "SELECT T1.first_name, T1.last_name FROM students AS T1 JOIN enrollments AS T2 ON T1.student_id = T2.student_id WHERE T2.semester = '2024-Fall' EXCEPT SELECT T1.first_name, T1.last_name FROM students AS T1 JOIN enrollments AS T2 ON T1.student_id = T2.student_id WHERE T2.semester = '2024-Spring'",
  },
  {
    question: 'Who are the five students with the highest average grade among those with at least three graded courses? Give first name, last name and average grade rounded to two decimals, best first (equal averages by last name, then first name).',
    gold: 'SELECT T1.first_name, T1.last_name, round(avg(T2.grade), 2) FROM students AS T1 JOIN enrollments AS T2 ON T1.student_id = T2.student_id WHERE T2.grade IS NOT NULL GROUP BY T1.student_id HAVING count(*) >= 3 ORDER BY avg(T2.grade) DESC, T1.last_name, T1.first_name LIMIT 5',
  },
  {
    question: 'Which departments pay their teachers more on average than the school-wide average salary? Give the department names.',
    gold: 'SELECT T2.name FROM teachers AS T1 JOIN departments AS T2 ON T1.department_id = T2.department_id GROUP BY T2.name HAVING avg(T1.salary) > (SELECT avg(salary) FROM teachers)',
  },
  {
    question: 'For each teacher, how many enrollments are there in the courses they teach? Give first name, last name and the count, busiest teacher first (equal counts by last name, then first name).',
    gold: 'SELECT T1.first_name, T1.last_name, count(*) FROM teachers AS T1 JOIN courses AS T2 ON T1.teacher_id = T2.teacher_id JOIN enrollments AS T3 ON T2.course_id = T3.course_id GROUP BY T1.teacher_id ORDER BY count(*) DESC, T1.last_name, T1.first_name',
  },
  {
    question: 'What are the codes of the courses taught in Turing Hall or worth exactly one credit?',
    gold: "SELECT T1.code FROM courses AS T1 JOIN departments AS T2 ON T1.department_id = T2.department_id WHERE T2.building = 'Turing Hall' OR T1.credits = 1",
  },
  {
    question: 'How many students are enrolled in courses this semester (2024-Fall)?',
    gold: "SELECT count(DISTINCT student_id) FROM enrollments WHERE semester = '2024-Fall'",
  },
  {
    question: 'What are the titles of the Biology courses whose average grade is below 70?',
    gold: "SELECT T1.title FROM courses AS T1 JOIN enrollments AS T2 ON T1.course_id = T2.course_id JOIN departments AS T3 ON T1.department_id = T3.department_id WHERE T3.name = 'Biology' GROUP BY T1.course_id HAVING avg(T2.grade) < 70",
  },
];
