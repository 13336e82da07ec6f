/**
 * Questions on the demo `shop` database, each with hand-written gold SQL in Spider's style. Literals name only the
 * fixed parts of the data (categories, product names, cities, order statuses). Money answers are rounded to cents
 * where sums of REALs would otherwise show binary noise. Order gives the ids (`demo-shop-001` …): append only.
 */
import type { DemoQuestionSpec } from './spec.ts';

export const SHOP_QUESTIONS: readonly DemoQuestionSpec[] = [
  { question: 'How many customers does the shop have?', gold: 'SELECT count(*) FROM customers' },
  { question: 'What are the names of the products that are out of stock?', gold: 'SELECT name FROM products WHERE stock = 0' },
  { question: 'What is the price of the most expensive product?', gold: 'SELECT max(price) FROM products' },
  { question: 'How many orders were cancelled?', gold: "SELECT count(*) FROM orders WHERE status = 'cancelled'" },
  { question: 'What is the average rating over all reviews?', gold: 'SELECT avg(rating) FROM reviews' },
  { question: 'What are the first and last names of the customers who live in Berlin?', gold: "SELECT first_name, last_name FROM customers WHERE city = 'Berlin'" },
  { question: 'How many orders are there for each order status?', gold: 'SELECT status, count(*) FROM orders GROUP BY status' },
  { question: 'Which products have "Wireless" in their name? Give their names and prices.', gold: "SELECT name, price FROM products WHERE name LIKE '%Wireless%'" },
  {
    question: 'How many products are there in each category? Give the category name and the count.',
    gold: 'SELECT T2.name, count(*) FROM products AS T1 JOIN categories AS T2 ON T1.category_id = T2.category_id GROUP BY T2.name',
  },
  { question: 'Which countries have more than 20 customers?', gold: 'SELECT country FROM customers GROUP BY country HAVING count(*) > 20' },
  {
    question: 'How many customers signed up in 2024 or live in Dublin?',
    gold: "SELECT count(*) FROM customers WHERE signup_date LIKE '2024%' OR city = 'Dublin'",
  },
  { question: 'What are the names and prices of the three cheapest products?', gold: 'SELECT name, price FROM products ORDER BY price LIMIT 3' },
  {
    question: 'What are the names and prices of the products in the Electronics category, from the most to the least expensive?',
    gold: "SELECT T1.name, T1.price FROM products AS T1 JOIN categories AS T2 ON T1.category_id = T2.category_id WHERE T2.name = 'Electronics' ORDER BY T1.price DESC",
  },
  {
    question: 'What is the total revenue of all delivered orders, rounded to cents?',
    gold: "SELECT round(sum(T1.quantity * T1.unit_price), 2) FROM order_items AS T1 JOIN orders AS T2 ON T1.order_id = T2.order_id WHERE T2.status = 'delivered'",
  },
  {
    question: 'What are the names of the products that have never been ordered?',
    gold: 'SELECT name FROM products WHERE product_id NOT IN (SELECT product_id FROM order_items)',
  },
  {
    question: 'What are the names of the products that cost more than the average product?',
    gold: 'SELECT name FROM products WHERE price > (SELECT avg(price) FROM products)',
  },
  {
    question: 'Which customers have placed more than five orders? Give their first and last names.',
    gold: 'SELECT T1.first_name, T1.last_name FROM customers AS T1 JOIN orders AS T2 ON T1.customer_id = T2.customer_id GROUP BY T1.customer_id HAVING count(*) > 5',
  },
  {
    question: 'Who are the five customers who spent the most on delivered orders? Give first name, last name and the amount spent rounded to cents, biggest spender first.',
    gold: "SELECT T1.first_name, T1.last_name, round(sum(T3.quantity * T3.unit_price), 2) FROM customers AS T1 JOIN orders AS T2 ON T1.customer_id = T2.customer_id JOIN order_items AS T3 ON T2.order_id = T3.order_id WHERE T2.status = 'delivered' GROUP BY T1.customer_id ORDER BY sum(T3.quantity * T3.unit_price) DESC LIMIT 5",
  },
  {
    question: 'Which product has sold the most units? Give its name.',
    gold: 'SELECT T1.name FROM products AS T1 JOIN order_items AS T2 ON T1.product_id = T2.product_id GROUP BY T1.product_id ORDER BY sum(T2.quantity) DESC LIMIT 1',
  },
  {
    question: 'Which customers have bought both a book and a toy? Give their first and last names.',
    gold: "SELECT T1.first_name, T1.last_name FROM customers AS T1 JOIN orders AS T2 ON T1.customer_id = T2.customer_id JOIN order_items AS T3 ON T2.order_id = T3.order_id JOIN products AS T4 ON T3.product_id = T4.product_id JOIN categories AS T5 ON T4.category_id = T5.category_id WHERE T5.name = 'Books' INTERSECT SELECT T1.first_name, T1.last_name FROM customers AS T1 JOIN orders AS T2 ON T1.customer_id = T2.customer_id JOIN order_items AS T3 ON T2.order_id = T3.order_id JOIN products AS T4 ON T3.product_id = T4.product_id JOIN categories AS T5 ON T4.category_id = T5.category_id WHERE T5.name = 'Toys'",
  },
  {
    question: 'Which customers have placed orders but never written a review? Give their first and last names.',
    gold: 'SELECT T1.first_name, T1.last_name FROM customers AS T1 JOIN orders AS T2 ON T1.customer_id = T2.customer_id EXCEPT SELECT T1.first_name, T1.last_name FROM customers AS T1 JOIN reviews AS T2 ON T1.customer_id = T2.customer_id',
  },
  {
    question: 'Which category has the highest average review rating? Give its name.',
    gold: 'SELECT T3.name FROM reviews AS T1 JOIN products AS T2 ON T1.product_id = T2.product_id JOIN categories AS T3 ON T2.category_id = T3.category_id GROUP BY T3.category_id ORDER BY avg(T1.rating) DESC LIMIT 1',
  },
  {
    question: 'How many orders were placed in each month of 2024? List the months in order.',
    gold: "SELECT strftime('%Y-%m', order_date), count(*) FROM orders WHERE order_date LIKE '2024%' GROUP BY strftime('%Y-%m', order_date) ORDER BY strftime('%Y-%m', order_date)",
  },
  {
    question: 'What are the names of the products that cost more than the average price of their own category?',
    gold: 'SELECT T1.name FROM products AS T1 WHERE T1.price > (SELECT avg(T2.price) FROM products AS T2 WHERE T2.category_id = T1.category_id)',
  },
  {
    question: 'What are the names of the products that received a one-star review or are discontinued?',
    gold: 'SELECT name FROM products WHERE discontinued = 1 UNION SELECT T1.name FROM products AS T1 JOIN reviews AS T2 ON T1.product_id = T2.product_id WHERE T2.rating = 1',
  },
  {
    question: 'How many reviews have no written comment?',
    gold: 'SELECT count(*) FROM reviews WHERE comment IS NULL',
  },
  {
    question: 'For each city with customers in Canada, how many customers live there?',
    gold: "SELECT city, count(*) FROM customers WHERE country = 'Canada' GROUP BY city",
  },
];
