/**
 * Demo database `shop`: an online shop with customers, categories, products, orders, order items and reviews.
 *
 * Fixed by hand: the 6 categories, the 48 product names and the 10 customer cities. Seeded: product prices (all
 * distinct, so "the most expensive" has one answer), stock, the 150 customers, about 360 orders between 2023-01-01
 * and 2024-06-30, their items, and reviews of delivered items.
 * Built-in facts the questions rely on: some products are out of stock, some are discontinued and never ordered,
 * some customers never order, a tenth of orders are cancelled. NULLs: missing emails and review comments.
 * Money is REAL with two decimals; an item's unit_price is the product's price on the order day (sometimes on sale).
 */
import type { Database } from 'sql.js';
import type { SqlValue } from '../../sql/types.ts';
import { pick, shuffled, type Rng } from '../rng.ts';
import { addDays, chance, emailOf, insertRows, popularityWeights, randomBetween, randomDate, uniquePeople, weightedIndex, weightedPick } from './generate.ts';
import { SHOP_QUESTIONS } from './shop-questions.ts';
import type { DemoDatabaseSpec } from './spec.ts';

const SCHEMA = `
CREATE TABLE customers (
  customer_id INTEGER PRIMARY KEY,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  email TEXT,
  city TEXT NOT NULL,
  country TEXT NOT NULL,
  signup_date TEXT NOT NULL
);
CREATE TABLE categories (
  category_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL
);
CREATE TABLE products (
  product_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  category_id INTEGER NOT NULL,
  price REAL NOT NULL,
  stock INTEGER NOT NULL,
  discontinued INTEGER NOT NULL DEFAULT 0,
  FOREIGN KEY (category_id) REFERENCES categories (category_id)
);
CREATE TABLE orders (
  order_id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL,
  order_date TEXT NOT NULL,
  status TEXT NOT NULL,
  FOREIGN KEY (customer_id) REFERENCES customers (customer_id)
);
CREATE TABLE order_items (
  order_id INTEGER NOT NULL,
  product_id INTEGER NOT NULL,
  quantity INTEGER NOT NULL,
  unit_price REAL NOT NULL,
  PRIMARY KEY (order_id, product_id),
  FOREIGN KEY (order_id) REFERENCES orders (order_id),
  FOREIGN KEY (product_id) REFERENCES products (product_id)
);
CREATE TABLE reviews (
  review_id INTEGER PRIMARY KEY,
  product_id INTEGER NOT NULL,
  customer_id INTEGER NOT NULL,
  rating INTEGER NOT NULL,
  review_date TEXT NOT NULL,
  comment TEXT,
  FOREIGN KEY (product_id) REFERENCES products (product_id),
  FOREIGN KEY (customer_id) REFERENCES customers (customer_id)
);
`;

/** category, price range in whole currency units, product names. */
const CATALOG: ReadonlyArray<readonly [string, number, number, readonly string[]]> = [
  ['Electronics', 12, 480, ['Wireless Mouse', 'Mechanical Keyboard', 'USB-C Charger', 'Noise Cancelling Headphones', 'Bluetooth Speaker', '27-inch Monitor', 'Webcam HD', 'Portable SSD 1TB']],
  ['Home & Kitchen', 8, 260, ['Chef Knife', 'Cast Iron Skillet', 'French Press', 'Electric Kettle', 'Bamboo Cutting Board', 'Stand Mixer', 'Wireless Doorbell', 'Linen Tablecloth']],
  ['Books', 6, 45, ['Cooking for Beginners', 'The Data Detective', 'Atlas of Rivers', 'Learn Python Fast', 'Garden Year', 'Night Sky Guide', 'Baking Bread at Home', 'A Brief Guide to Chess']],
  ['Sports & Outdoors', 9, 320, ['Yoga Mat', 'Trail Running Shoes', 'Camping Tent', 'Water Bottle', 'Adjustable Dumbbells', 'Cycling Helmet', 'Hiking Backpack', 'Wireless Fitness Tracker']],
  ['Toys', 5, 120, ['Wooden Train Set', 'Building Blocks', 'Puzzle 1000 Pieces', 'Plush Bear', 'Remote Control Car', 'Board Game Classic', 'Kite', 'Science Kit']],
  ['Beauty', 4, 90, ['Face Cream', 'Shampoo', 'Lip Balm', 'Hair Dryer', 'Sunscreen SPF 50', 'Perfume', 'Nail Polish Set', 'Beard Oil']],
];

const CITIES: ReadonlyArray<readonly [string, string]> = [
  ['Toronto', 'Canada'], ['Vancouver', 'Canada'], ['Seattle', 'United States'], ['Austin', 'United States'], ['Chicago', 'United States'],
  ['Manchester', 'United Kingdom'], ['Dublin', 'Ireland'], ['Berlin', 'Germany'], ['Lyon', 'France'], ['Melbourne', 'Australia'],
];
const CITY_WEIGHTS = [3, 2, 3, 2, 3, 2, 2, 3, 1, 2];

const COMMENTS = ['Great value.', 'Works as described.', 'Arrived quickly.', 'Better than expected!', 'Not worth the price.', 'Broke after a week.', 'Would buy again.', 'Good quality.', 'A nice gift.', 'Smaller than it looks.'];

const CUSTOMER_COUNT = 150;
const ORDER_COUNT = 360;

/** A price with whole-unit part in [min, max] and a shop-like ending (.99, .49, .95 or .00). */
function shopPrice(rng: Rng, min: number, max: number): number {
  const cents = pick(rng, [99, 99, 49, 95, 0]);
  return (randomBetween(rng, min, max) * 100 + cents) / 100;
}

function populate(db: Database, rng: Rng): void {
  insertRows(db, 'categories', ['category_id', 'name'], CATALOG.map(([name], i) => [i + 1, name]));

  const prices = new Set<number>();
  const products: Array<{ id: number; price: number; discontinued: boolean }> = [];
  const productRows: SqlValue[][] = [];
  CATALOG.forEach(([, min, max, names], c) => {
    for (const name of names) {
      let price = shopPrice(rng, min, max);
      while (prices.has(price)) price = shopPrice(rng, min, max);
      prices.add(price);
      const discontinued = chance(rng, 0.08);
      const stock = discontinued || chance(rng, 0.1) ? 0 : randomBetween(rng, 1, 250);
      const id = products.length + 1;
      products.push({ id, price, discontinued });
      productRows.push([id, name, c + 1, price, stock, discontinued ? 1 : 0]);
    }
  });
  insertRows(db, 'products', ['product_id', 'name', 'category_id', 'price', 'stock', 'discontinued'], productRows);

  const people = uniquePeople(rng, CUSTOMER_COUNT, new Set());
  const customers = people.map((p, i) => {
    const [city, country] = weightedPick(rng, CITIES, CITY_WEIGHTS);
    return [i + 1, p.first, p.last, chance(rng, 0.08) ? null : emailOf(p, 'shopper.example.com'), city, country, randomDate(rng, '2020-03-01', '2024-06-15')] as SqlValue[];
  });
  insertRows(db, 'customers', ['customer_id', 'first_name', 'last_name', 'email', 'city', 'country', 'signup_date'], customers);

  // Orders: a skewed set of customers buys (about an eighth never does); discontinued products never sell.
  const customerWeights = popularityWeights(rng, CUSTOMER_COUNT, 0.6).map((w) => (chance(rng, 0.12) ? 0 : w));
  const productWeights = popularityWeights(rng, products.length, 0.6).map((w, i) => (products[i].discontinued ? 0 : w));
  const orders: SqlValue[][] = [];
  const items: SqlValue[][] = [];
  const delivered: Array<{ customer: number; product: number; date: string }> = [];
  for (let i = 0; i < ORDER_COUNT; i++) {
    const customer = weightedIndex(rng, customerWeights) + 1;
    const signup = String(customers[customer - 1][6]);
    const date = randomDate(rng, signup > '2023-01-01' ? signup : '2023-01-01', '2024-06-30');
    const status = date > '2024-06-20' ? weightedPick(rng, ['pending', 'shipped'], [1, 1]) : weightedPick(rng, ['delivered', 'shipped', 'cancelled'], [84, 4, 12]);
    orders.push([customer, date, status]);
  }
  orders.sort((a, b) => String(a[1]).localeCompare(String(b[1])));
  orders.forEach((order, i) => {
    const orderId = i + 1;
    const chosen = new Set<number>();
    const lines = weightedIndex(rng, [0, 5, 3, 2, 1]);
    while (chosen.size < lines) chosen.add(weightedIndex(rng, productWeights));
    const onSale = chance(rng, 0.15);
    for (const p of [...chosen].sort((a, b) => a - b)) {
      const price = onSale ? Math.round(products[p].price * 90) / 100 : products[p].price;
      items.push([orderId, products[p].id, weightedPick(rng, [1, 2, 3, 4], [70, 20, 7, 3]), price]);
      if (order[2] === 'delivered') delivered.push({ customer: Number(order[0]), product: products[p].id, date: String(order[1]) });
    }
  });
  insertRows(db, 'orders', ['order_id', 'customer_id', 'order_date', 'status'], orders.map((o, i) => [i + 1, ...o]));
  insertRows(db, 'order_items', ['order_id', 'product_id', 'quantity', 'unit_price'], items);

  // Reviews: about 40% of delivered purchases, at most one per customer and product, some days after delivery.
  const reviewed = new Set<string>();
  const reviews: SqlValue[][] = [];
  for (const d of shuffled(rng, delivered)) {
    const key = `${d.customer}:${d.product}`;
    if (reviewed.has(key) || !chance(rng, 0.4)) continue;
    reviewed.add(key);
    const rating = weightedPick(rng, [1, 2, 3, 4, 5], [6, 7, 15, 32, 40]);
    const reviewDate = addDays(d.date, randomBetween(rng, 3, 40));
    reviews.push([d.product, d.customer, rating, reviewDate > '2024-06-30' ? '2024-06-30' : reviewDate, chance(rng, 0.45) ? null : pick(rng, COMMENTS)]);
  }
  reviews.sort((a, b) => String(a[3]).localeCompare(String(b[3])) || Number(a[0]) - Number(b[0]) || Number(a[1]) - Number(b[1]));
  insertRows(db, 'reviews', ['review_id', 'product_id', 'customer_id', 'rating', 'review_date', 'comment'], reviews.map((r, i) => [i + 1, ...r]));
}

export const SHOP: DemoDatabaseSpec = { id: 'shop', schema: SCHEMA, populate, questions: SHOP_QUESTIONS };
