-- A held-out schema for the SQL planner (tests/it/sql_eval.rs): a small web shop, a domain
-- neither sample database has. Written by hand, with the questions of heldout_shop.jsonl and
-- their results, before the planner was run on it; no planner rule may be fitted to it.
-- Portable SQL: loads into SQLite and PostgreSQL alike.

CREATE TABLE categories (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL
);

CREATE TABLE products (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    category_id INTEGER NOT NULL REFERENCES categories(id),
    price NUMERIC(8,2) NOT NULL,
    in_stock BOOLEAN NOT NULL
);

CREATE TABLE accounts (
    id INTEGER PRIMARY KEY,
    username TEXT NOT NULL,
    country TEXT NOT NULL,
    signed_up DATE NOT NULL,
    archived BOOLEAN NOT NULL
);

CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    placed_on DATE NOT NULL,
    channel TEXT NOT NULL,
    discount_code TEXT,
    shipping_fee NUMERIC(6,2) NOT NULL
);

CREATE TABLE order_items (
    id INTEGER PRIMARY KEY,
    order_id INTEGER NOT NULL REFERENCES orders(id),
    product_id INTEGER NOT NULL REFERENCES products(id),
    quantity INTEGER NOT NULL
);

INSERT INTO categories (id, name) VALUES
    (1, 'Outdoor'), (2, 'Kitchen'), (3, 'Books'), (4, 'Toys');

INSERT INTO products (id, name, category_id, price, in_stock) VALUES
    (1, 'Tent', 1, 120.00, TRUE),
    (2, 'Sleeping Bag', 1, 60.00, FALSE),
    (3, 'Camping Stove', 1, 45.50, TRUE),
    (4, 'Chef Knife', 2, 35.00, TRUE),
    (5, 'Frying Pan', 2, 28.00, TRUE),
    (6, 'Cookbook', 3, 22.00, FALSE),
    (7, 'Atlas', 3, 55.00, TRUE),
    (8, 'Puzzle', 4, 15.00, TRUE);

INSERT INTO accounts (id, username, country, signed_up, archived) VALUES
    (1, 'alice', 'Germany', '2023-02-10', FALSE),
    (2, 'bob', 'France', '2023-07-01', FALSE),
    (3, 'carol', 'Germany', '2024-01-15', TRUE),
    (4, 'dave', 'Spain', '2024-03-20', FALSE),
    (5, 'erin', 'France', '2024-06-05', TRUE),
    (6, 'frank', 'Germany', '2024-09-30', FALSE);

INSERT INTO orders (id, account_id, placed_on, channel, discount_code, shipping_fee) VALUES
    (1, 1, '2024-01-05', 'web_shop', NULL, 4.99),
    (2, 1, '2024-02-11', 'mobile_app', 'SPRING10', 0.00),
    (3, 2, '2024-02-20', 'web_shop', NULL, 4.99),
    (4, 2, '2024-03-03', 'phone', NULL, 7.50),
    (5, 3, '2024-03-15', 'web_shop', 'SPRING10', 4.99),
    (6, 4, '2024-04-01', 'web_shop', NULL, 4.99),
    (7, 4, '2024-05-12', 'mobile_app', 'WELCOME5', 0.00),
    (8, 5, '2024-05-30', 'phone', NULL, 7.50),
    (9, 1, '2025-01-08', 'web_shop', 'WELCOME5', 4.99),
    (10, 4, '2025-02-14', 'mobile_app', NULL, 0.00);

INSERT INTO order_items (id, order_id, product_id, quantity) VALUES
    (1, 1, 1, 1), (2, 1, 8, 2), (3, 2, 4, 1), (4, 3, 2, 1), (5, 3, 3, 1),
    (6, 4, 6, 3), (7, 5, 5, 1), (8, 6, 1, 1), (9, 6, 2, 2), (10, 7, 7, 1),
    (11, 8, 8, 4), (12, 9, 3, 1), (13, 10, 4, 2), (14, 10, 5, 1);
