/**
 * Demo database `school`: a small college with departments, teachers, courses, students and enrollments.
 *
 * Fixed by hand: the 6 departments with their buildings and budgets, and the 36 courses with codes, titles and
 * credits. Seeded: 30 teachers (every department has at least three; salaries all distinct), course assignments,
 * 200 students and their enrollments over three semesters. Built-in facts the questions rely on: two courses have
 * no teacher yet, one new course has no enrollments, a tenth of students have not declared a major, and the current
 * semester (2024-Fall) has no grades yet. NULLs: teacher-less courses, undeclared majors, missing grades and emails.
 */
import type { Database } from 'sql.js';
import type { SqlValue } from '../../sql/types.ts';
import { randomInt, shuffled, type Rng } from '../rng.ts';
import { chance, distinctIntegers, emailOf, insertRows, popularityWeights, randomBetween, randomDate, uniquePeople, weightedIndex } from './generate.ts';
import { SCHOOL_QUESTIONS } from './school-questions.ts';
import type { DemoDatabaseSpec } from './spec.ts';

const SCHEMA = `
CREATE TABLE departments (
  department_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  building TEXT NOT NULL,
  budget INTEGER NOT NULL
);
CREATE TABLE teachers (
  teacher_id INTEGER PRIMARY KEY,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  department_id INTEGER NOT NULL,
  hire_date TEXT NOT NULL,
  salary INTEGER NOT NULL,
  email TEXT,
  FOREIGN KEY (department_id) REFERENCES departments (department_id)
);
CREATE TABLE courses (
  course_id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL,
  department_id INTEGER NOT NULL,
  teacher_id INTEGER,
  credits INTEGER NOT NULL,
  FOREIGN KEY (department_id) REFERENCES departments (department_id),
  FOREIGN KEY (teacher_id) REFERENCES teachers (teacher_id)
);
CREATE TABLE students (
  student_id INTEGER PRIMARY KEY,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  birth_date TEXT NOT NULL,
  enrollment_year INTEGER NOT NULL,
  major_department_id INTEGER,
  email TEXT,
  FOREIGN KEY (major_department_id) REFERENCES departments (department_id)
);
CREATE TABLE enrollments (
  student_id INTEGER NOT NULL,
  course_id INTEGER NOT NULL,
  semester TEXT NOT NULL,
  grade INTEGER,
  PRIMARY KEY (student_id, course_id),
  FOREIGN KEY (student_id) REFERENCES students (student_id),
  FOREIGN KEY (course_id) REFERENCES courses (course_id)
);
`;

/** name, building, yearly budget; then the department's courses as [code, title, credits]. */
const DEPARTMENTS: ReadonlyArray<readonly [string, string, number, ReadonlyArray<readonly [string, string, number]>]> = [
  ['Mathematics', 'Euler Hall', 910000, [['MATH101', 'Calculus I', 4], ['MATH102', 'Calculus II', 4], ['MATH201', 'Linear Algebra', 3], ['MATH210', 'Discrete Mathematics', 3], ['MATH301', 'Probability Theory', 3], ['MATH320', 'Number Theory', 3]]],
  ['Computer Science', 'Turing Hall', 1350000, [['CS101', 'Introduction to Programming', 4], ['CS201', 'Data Structures', 4], ['CS220', 'Databases', 3], ['CS301', 'Algorithms', 4], ['CS340', 'Computer Networks', 3], ['CS450', 'Machine Learning', 3], ['CS499', 'Quantum Computing Seminar', 2]]],
  ['Physics', 'Curie Hall', 780000, [['PHYS101', 'Introduction to Mechanics', 4], ['PHYS201', 'Electromagnetism', 4], ['PHYS220', 'Thermodynamics', 3], ['PHYS310', 'Quantum Physics', 3], ['PHYS330', 'Astrophysics', 3]]],
  ['History', 'Bloch Hall', 420000, [['HIST101', 'World History', 3], ['HIST210', 'Medieval Europe', 3], ['HIST230', 'History of Science', 3], ['HIST305', 'Modern Asia', 3], ['HIST340', 'The Cold War', 2]]],
  ['Literature', 'Austen Hall', 385000, [['LIT101', 'Introduction to Literature', 3], ['LIT210', 'Shakespeare', 3], ['LIT220', 'Poetry Workshop', 2], ['LIT305', 'The Modern Novel', 3], ['LIT330', 'Creative Writing', 2], ['LIT340', 'Literature and Film', 3]]],
  ['Biology', 'Darwin Hall', 990000, [['BIO101', 'Introduction to Biology', 4], ['BIO201', 'Genetics', 4], ['BIO220', 'Ecology', 3], ['BIO310', 'Cell Biology', 3], ['BIO330', 'Marine Biology', 3], ['BIO350', 'Neuroscience', 3], ['BIO101L', 'Biology Lab', 1]]],
];

/** Courses nobody teaches yet; and the seminar that opens next year, so nobody has enrolled. */
const UNASSIGNED_COURSES = new Set(['LIT340', 'BIO350']);
const UNOPENED_COURSE = 'CS499';

const TEACHER_COUNT = 30;
const STUDENT_COUNT = 200;
/** Semesters in order; 2024-Fall is in progress. */
const SEMESTERS = ['2023-Fall', '2024-Spring', '2024-Fall'] as const;
const CURRENT_SEMESTER = '2024-Fall';

function populate(db: Database, rng: Rng): void {
  insertRows(db, 'departments', ['department_id', 'name', 'building', 'budget'], DEPARTMENTS.map(([name, building, budget], i) => [i + 1, name, building, budget]));

  // Teachers: three per department, the remaining twelve spread by department size; salaries distinct.
  const taken = new Set<string>();
  const teacherPeople = uniquePeople(rng, TEACHER_COUNT, taken);
  const salaries = distinctIntegers(rng, TEACHER_COUNT, 104, 236).map((k) => k * 500);
  const sizeWeights = DEPARTMENTS.map(([, , , courses]) => courses.length);
  const teacherDepartments = teacherPeople.map((_, i) => (i < 3 * DEPARTMENTS.length ? (i % DEPARTMENTS.length) + 1 : weightedIndex(rng, sizeWeights) + 1));
  const teachers = teacherPeople.map((p, i) => [i + 1, p.first, p.last, teacherDepartments[i], randomDate(rng, '1996-08-15', '2023-08-15'), salaries[i], chance(rng, 0.07) ? null : emailOf(p, 'faculty.example.edu')] as SqlValue[]);
  insertRows(db, 'teachers', ['teacher_id', 'first_name', 'last_name', 'department_id', 'hire_date', 'salary', 'email'], teachers);

  // Courses: taught by a teacher of their own department, except the unassigned ones.
  const courses: SqlValue[][] = [];
  const courseDepartment: number[] = [];
  DEPARTMENTS.forEach(([, , , list], d) => {
    const staff = teachers.filter((t) => t[3] === d + 1).map((t) => Number(t[0]));
    for (const [code, title, credits] of list) {
      const teacher = UNASSIGNED_COURSES.has(code) ? null : staff[randomInt(rng, staff.length)];
      courses.push([courses.length + 1, code, title, d + 1, teacher, credits]);
      courseDepartment.push(d + 1);
    }
  });
  insertRows(db, 'courses', ['course_id', 'code', 'title', 'department_id', 'teacher_id', 'credits'], courses);

  const students = uniquePeople(rng, STUDENT_COUNT, taken).map((p, i) => {
    const year = randomBetween(rng, 2020, 2024);
    const birth = randomDate(rng, `${year - 20}-01-01`, `${year - 18}-08-31`);
    const major = chance(rng, 0.1) ? null : weightedIndex(rng, [4, 6, 3, 2, 2, 4]) + 1;
    return [i + 1, p.first, p.last, birth, year, major, chance(rng, 0.05) ? null : emailOf(p, 'students.example.edu')] as SqlValue[];
  });
  insertRows(db, 'students', ['student_id', 'first_name', 'last_name', 'birth_date', 'enrollment_year', 'major_department_id', 'email'], students);

  // Enrollments: 2 to 7 distinct courses per student, leaning to their major; students who enrolled in 2024 only
  // take 2024 semesters. Grades are whole percentages, higher for stronger students, NULL while in progress.
  const coursePopularity = popularityWeights(rng, courses.length, 0.5).map((w, c) => (courses[c][1] === UNOPENED_COURSE ? 0 : w));
  const enrollments: SqlValue[][] = [];
  for (const s of students) {
    const major = s[5] === null ? null : Number(s[5]);
    const weights = coursePopularity.map((w, c) => (courseDepartment[c] === major ? w * 4 : w));
    const count = randomBetween(rng, 2, 7);
    const chosen = new Set<number>();
    while (chosen.size < count) chosen.add(weightedIndex(rng, weights));
    const semesters = Number(s[4]) === 2024 ? SEMESTERS.slice(1) : SEMESTERS;
    const ability = randomBetween(rng, 55, 90);
    for (const c of [...chosen].sort((a, b) => a - b)) {
      const semester = semesters[randomInt(rng, semesters.length)];
      const grade = semester === CURRENT_SEMESTER ? null : Math.max(20, Math.min(100, ability + randomBetween(rng, -18, 12)));
      enrollments.push([Number(s[0]), c + 1, semester, grade]);
    }
  }
  // Rows go in by semester (as a registrar enters them), students mixed within a semester.
  const bySemester = SEMESTERS.flatMap((sem) => shuffled(rng, enrollments.filter((e) => e[2] === sem)));
  insertRows(db, 'enrollments', ['student_id', 'course_id', 'semester', 'grade'], bySemester);
}

export const SCHOOL: DemoDatabaseSpec = { id: 'school', schema: SCHEMA, populate, questions: SCHOOL_QUESTIONS };
