/**
 * Word lists for the demo generators: given and family names drawn from many countries, so the people in the demo
 * databases read like a real city's. Order matters: generators index into these lists with a seeded Rng, so
 * reordering or editing them changes every generated database (and the demo bundle's bytes).
 */

export const FIRST_NAMES: readonly string[] = [
  'Aaliyah', 'Adrian', 'Aisha', 'Alejandro', 'Alice', 'Amir', 'Ana', 'Andrea', 'Arjun', 'Ava',
  'Benjamin', 'Bianca', 'Caleb', 'Camila', 'Carlos', 'Chloe', 'Chen', 'Daniel', 'Daria', 'David',
  'Diego', 'Elif', 'Elijah', 'Emma', 'Ethan', 'Fatima', 'Felix', 'Freya', 'Gabriel', 'Grace',
  'Hana', 'Hannah', 'Hugo', 'Ibrahim', 'Isabel', 'Ivan', 'Jack', 'Jamal', 'Julia', 'Kai',
  'Kenji', 'Laila', 'Leo', 'Lena', 'Liam', 'Lucas', 'Maya', 'Mateo', 'Mia', 'Mohammed',
  'Nadia', 'Naomi', 'Nina', 'Noah', 'Olivia', 'Omar', 'Oscar', 'Priya', 'Rafael', 'Rosa',
  'Ruby', 'Samuel', 'Sara', 'Sofia', 'Stefan', 'Tariq', 'Theo', 'Valentina', 'Wei', 'Yara',
  'Yusuf', 'Zara', 'Zoe', 'Marta', 'Jonas', 'Ingrid', 'Kofi', 'Leila', 'Mei', 'Tomas',
];

export const LAST_NAMES: readonly string[] = [
  'Abbott', 'Adeyemi', 'Ahmed', 'Alvarez', 'Andersen', 'Bauer', 'Becker', 'Bennett', 'Brennan', 'Campbell',
  'Castillo', 'Chen', 'Clarke', 'Costa', 'Dawson', 'Dimitrov', 'Edwards', 'Eriksen', 'Fischer', 'Fitzgerald',
  'Garcia', 'Gupta', 'Hansen', 'Hayes', 'Hoffmann', 'Ivanova', 'Jensen', 'Kaur', 'Khan', 'Kim',
  'Kowalski', 'Larsen', 'Lopez', 'Mahmoud', 'Martin', 'Mendes', 'Moreau', 'Morris', 'Murphy', 'Nakamura',
  'Nguyen', 'Novak', 'Okafor', 'Olsen', 'Patel', 'Petrov', 'Quinn', 'Rahman', 'Reyes', 'Rossi',
  'Santos', 'Schmidt', 'Silva', 'Sato', 'Singh', 'Sullivan', 'Tanaka', 'Torres', 'Walsh', 'Yilmaz',
];
