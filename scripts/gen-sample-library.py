#!/usr/bin/env python3
"""Generate the second SQL sample database (a public library network) and its eval questions.

    scripts/gen-sample-library.py [OUT_DIR]      # default: samples/sql

Writes, deterministically (fixed seed, standard library only):
  OUT_DIR/library.sql              portable DDL + multi-row INSERTs (SQLite and PostgreSQL 15)
  OUT_DIR/library_eval.jsonl       questions for `qa sql eval`, expected rows computed here by
                                   hand-written SQL run on an in-memory SQLite copy of the data
                                   (independently of `qa`)

This database is the development set of the SQL planner, of a different domain than the audit
sample: the planner must not know anything about either. Every expected result below comes
from the SQL next to its question, never from `qa`.

Schema:
  branches(id, name UNIQUE, city, opened_on, has_cafe BOOLEAN)                    5 rows
  authors(id, full_name, country, birth_year NULL)                               60 rows
  books(id, title, author_id -> authors, genre, format, published_year, pages,
        replacement_cost NUMERIC(8,2), is_reference BOOLEAN)                    400 rows
  members(id, full_name, email UNIQUE, home_branch_id -> branches,
          membership_type, joined_on, is_active BOOLEAN, deposit NUMERIC(6,2))   300 rows
  loans(id, book_id -> books, member_id -> members, branch_id -> branches, loaned_on,
        due_on, returned_on NULL, checkout_channel, late_fee NUMERIC(6,2),
        renewed BOOLEAN)                                                        4000 rows
Text values use separators on purpose (`science_fiction`, `young-adult`, `e_book`,
`self_service`): questions write them as words. The data set's "today" is 2025-12-31.
"""

import datetime as dt
import os
import random
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sql_sample_common as common  # noqa: E402
from sql_sample_common import Money  # noqa: E402

SEED = 20251117
TODAY = dt.date(2025, 12, 31)

BRANCHES = [
    # name, city, opened_on, has_cafe
    ("Central", "Lyon", dt.date(1998, 9, 1), True),
    ("Riverside", "Grenoble", dt.date(2006, 3, 15), False),
    ("Old Town", "Lyon", dt.date(1987, 5, 2), False),
    ("Harbour View", "Annecy", dt.date(2014, 6, 20), True),
    ("Northgate", "Grenoble", dt.date(2019, 1, 10), True),
]
BRANCH_WEIGHTS = [34, 22, 18, 14, 12]

COUNTRIES = [("France", 14), ("United Kingdom", 9), ("Japan", 7), ("Canada", 6), ("Nigeria", 5),
             ("Brazil", 5), ("India", 5), ("Germany", 4), ("Norway", 3), ("Mexico", 2)]

FIRST = ["Ada", "Bastien", "Chiara", "Dmitri", "Esther", "Femi", "Gabriel", "Hiro", "Ines", "Jon",
         "Kasia", "Lucien", "Mariana", "Noor", "Oskar", "Priya", "Quentin", "Ruth", "Sipho", "Tomas",
         "Uma", "Valentin", "Wen", "Ximena", "Yara", "Zeno", "Aiko", "Bruno", "Camille", "Diego"]
LAST = ["Abara", "Bergstrom", "Carvalho", "Delacroix", "Eze", "Fontaine", "Garnier", "Haugen",
        "Ishikawa", "Joshi", "Keller", "Lemaire", "Mbeki", "Nakamura", "Okafor", "Petit", "Quesnel",
        "Rao", "Sato", "Tremblay", "Umeh", "Vidal", "Whitfield", "Xavier", "Yildiz", "Zapata"]

GENRES = [("science_fiction", 16, (280, 620)), ("crime", 20, (240, 520)),
          ("young-adult", 12, (200, 420)), ("history", 12, (320, 880)),
          ("poetry", 8, (60, 180)), ("graphic_novel", 9, (90, 260)),
          ("cookery", 8, (150, 380)), ("travel", 15, (180, 460))]
FORMATS = [("paperback", 48), ("hardcover", 27), ("e_book", 15), ("audiobook", 10)]
MEMBERSHIP = [("adult", 50), ("student", 25), ("senior", 15), ("child", 10)]
CHANNELS = [("front_desk", 45), ("self_service", 40), ("mobile_app", 15)]

TITLE_A = ["The Silent", "A Distant", "The Last", "Beyond the", "The Hidden", "Under a Pale",
           "The Glass", "Letters from the", "The Winter", "Shadows of the", "The Copper",
           "Songs of the", "The Forgotten", "Maps of the", "The Ninth", "Echoes of the"]
TITLE_B = ["Harbour", "Orchard", "Frontier", "Lighthouse", "Archive", "River", "Garden",
           "Mountain", "Station", "Kingdom", "Observatory", "Market", "Island", "Forest",
           "Cathedral", "Desert", "Engine", "Library", "Meridian", "Valley", "Tide", "Atlas",
           "Canal", "Citadel", "Comet"]


def day(rng, lo, hi):
    return lo + dt.timedelta(days=rng.randint(0, (hi - lo).days))


def pick(rng, weighted):
    return rng.choices([w[0] for w in weighted], [w[1] for w in weighted])[0]


def generate():
    rng = random.Random(SEED)
    branches = [[i + 1, n, c, o, cafe] for i, (n, c, o, cafe) in enumerate(BRANCHES)]

    names = set()

    def person():
        while True:
            n = rng.choice(FIRST) + " " + rng.choice(LAST)
            if n not in names:
                names.add(n)
                return n

    authors = []
    for i in range(60):
        country = pick(rng, COUNTRIES)
        born = rng.randint(1920, 1995) if rng.random() < 0.9 else None
        authors.append([i + 1, person(), country, born])

    titles = set()
    books = []
    # A few prolific authors, so "top authors" questions have clear answers.
    author_weights = [12 if i < 3 else (6 if i < 8 else 2) for i in range(60)]
    author_weights[0] = 16
    for i in range(400):
        while True:
            t = rng.choice(TITLE_A) + " " + rng.choice(TITLE_B)
            if t in titles:
                t = "%s %s" % (t, ["II", "III", "IV", "V", "VI"][rng.randint(0, 4)])
            if t not in titles:
                titles.add(t)
                break
        genre, _, (lo, hi) = rng.choices(GENRES, [g[1] for g in GENRES])[0]
        fmt = pick(rng, FORMATS)
        year = min(2025, max(1950, int(rng.triangular(1950, 2026, 2019))))
        pages = rng.randint(lo, hi)
        cost = int(round(rng.uniform(6, 45) * 100 + pages * 3))
        is_ref = genre in ("history", "travel") and rng.random() < 0.18
        author = rng.choices(range(1, 61), author_weights)[0]
        books.append([i + 1, t, author, genre, fmt, year, pages, Money(cost), is_ref])

    members = []
    emails = set()
    for i in range(300):
        n = person()
        email = n.lower().replace(" ", ".") + "@example.org"
        while email in emails:
            email = email.replace("@", "1@")
        emails.add(email)
        home = rng.choices(range(1, 6), BRANCH_WEIGHTS)[0]
        mtype = pick(rng, MEMBERSHIP)
        joined = day(rng, dt.date(2019, 1, 1), dt.date(2025, 6, 30))
        active = rng.random() < 0.8
        deposit = {"adult": 3000, "student": 1000, "senior": 1500, "child": 0}[mtype]
        if mtype != "child" and rng.random() < 0.2:
            deposit += 2000
        members.append([i + 1, n, email, home, mtype, joined, active, Money(deposit)])

    # Loans: active members borrow more; reference books are never lent.
    lendable = [b for b in books if not b[8]]
    book_weights = [rng.uniform(0.3, 2.5) for _ in lendable]
    member_weights = [rng.uniform(0.2, 2.2) * (1.0 if m[6] else 0.35) for m in members]
    loans = []
    for _ in range(4000):
        m = rng.choices(members, member_weights)[0]
        b = rng.choices(lendable, book_weights)[0]
        branch = m[3] if rng.random() < 0.7 else rng.choices(range(1, 6), BRANCH_WEIGHTS)[0]
        start = max(dt.date(2023, 1, 1), m[5])
        loaned = day(rng, start, TODAY)
        due = loaned + dt.timedelta(days=21)
        renewed = rng.random() < 0.15
        if renewed:
            due += dt.timedelta(days=14)
        age = (TODAY - loaned).days
        if age < 30 and rng.random() < 0.6 or rng.random() < 0.02:
            returned, fee = None, 0
        else:
            returned = loaned + dt.timedelta(days=int(rng.triangular(2, 60, 16)))
            if returned > TODAY:
                returned = None
            late = (returned - due).days if returned else 0
            fee = min(1000, max(0, late) * 25)
        channel = pick(rng, CHANNELS)
        loans.append([None, b[0], m[0], branch, loaned, due, returned, channel, Money(fee), renewed])
    loans.sort(key=lambda l: (l[4], l[2], l[1]))
    for i, l in enumerate(loans):
        l[0] = i + 1
    return branches, authors, books, members, loans


DDL = """\
CREATE TABLE branches (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    city TEXT NOT NULL,
    opened_on DATE NOT NULL,
    has_cafe BOOLEAN NOT NULL
);

CREATE TABLE authors (
    id INTEGER PRIMARY KEY,
    full_name TEXT NOT NULL,
    country TEXT NOT NULL,
    birth_year INTEGER
);

CREATE TABLE books (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    author_id INTEGER NOT NULL REFERENCES authors(id),
    genre TEXT NOT NULL,
    format TEXT NOT NULL,
    published_year INTEGER NOT NULL,
    pages INTEGER NOT NULL,
    replacement_cost NUMERIC(8,2) NOT NULL,
    is_reference BOOLEAN NOT NULL
);

CREATE TABLE members (
    id INTEGER PRIMARY KEY,
    full_name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    home_branch_id INTEGER NOT NULL REFERENCES branches(id),
    membership_type TEXT NOT NULL,
    joined_on DATE NOT NULL,
    is_active BOOLEAN NOT NULL,
    deposit NUMERIC(6,2) NOT NULL
);

CREATE TABLE loans (
    id INTEGER PRIMARY KEY,
    book_id INTEGER NOT NULL REFERENCES books(id),
    member_id INTEGER NOT NULL REFERENCES members(id),
    branch_id INTEGER NOT NULL REFERENCES branches(id),
    loaned_on DATE NOT NULL,
    due_on DATE NOT NULL,
    returned_on DATE,
    checkout_channel TEXT NOT NULL,
    late_fee NUMERIC(6,2) NOT NULL,
    renewed BOOLEAN NOT NULL
);

CREATE INDEX books_author_id_idx ON books (author_id);
CREATE INDEX members_home_branch_id_idx ON members (home_branch_id);
CREATE INDEX loans_book_id_idx ON loans (book_id);
CREATE INDEX loans_member_id_idx ON loans (member_id);
CREATE INDEX loans_branch_id_idx ON loans (branch_id);
"""

COLUMNS = {
    "branches": "id, name, city, opened_on, has_cafe",
    "authors": "id, full_name, country, birth_year",
    "books": "id, title, author_id, genre, format, published_year, pages, replacement_cost, is_reference",
    "members": "id, full_name, email, home_branch_id, membership_type, joined_on, is_active, deposit",
    "loans": "id, book_id, member_id, branch_id, loaned_on, due_on, returned_on, checkout_channel, late_fee, renewed",
}


def render(tables):
    header = [
        "-- Second sample database for `qa sql`: a public library network (the planner's dev set).",
        "-- Generated by scripts/gen-sample-library.py (seed %d); do not edit by hand." % SEED,
        "-- Portable: runs unchanged on SQLite (3.23+) and PostgreSQL 15.",
    ]
    return common.render(header, DDL, COLUMNS, tables)


# The questions: (id, difficulty, question, hand-written SQL, order_matters).
# SQL runs on SQLite here; it is written so that its result is engine-independent.
QUESTIONS = [
    # --- easy: one table, a filter or an aggregate
    ("lib-01", "easy", "How many members are there?", "SELECT COUNT(*) FROM members", False),
    ("lib-02", "easy", "How many active members are there?", "SELECT COUNT(*) FROM members WHERE is_active", False),
    ("lib-03", "easy", "How many members are not active?", "SELECT COUNT(*) FROM members WHERE NOT is_active", False),
    ("lib-04", "easy", "How many reference books does the library have?", "SELECT COUNT(*) FROM books WHERE is_reference", False),
    ("lib-05", "easy", "How many science fiction books are there?", "SELECT COUNT(*) FROM books WHERE genre = 'science_fiction'", False),
    ("lib-06", "easy", "How many books are in the young adult genre?", "SELECT COUNT(*) FROM books WHERE genre = 'young-adult'", False),
    ("lib-07", "easy", "How many loans were made through self service?", "SELECT COUNT(*) FROM loans WHERE checkout_channel = 'self_service'", False),
    ("lib-08", "easy", "How many student members are there?", "SELECT COUNT(*) FROM members WHERE membership_type = 'student'", False),
    ("lib-09", "easy", "What is the average number of pages of a book?", "SELECT ROUND(AVG(pages), 2) FROM books", False),
    ("lib-10", "easy", "What is the total late fee of all loans?", "SELECT SUM(late_fee) FROM loans", False),
    ("lib-11", "easy", "What is the highest replacement cost of a book?", "SELECT MAX(replacement_cost) FROM books", False),
    ("lib-12", "easy", "How many branches have a cafe?", "SELECT COUNT(*) FROM branches WHERE has_cafe", False),
    ("lib-13", "easy", "List the titles of poetry books", "SELECT title FROM books WHERE genre = 'poetry'", False),
    ("lib-14", "easy", "How many loans have not been returned?", "SELECT COUNT(*) FROM loans WHERE returned_on IS NULL", False),
    ("lib-15", "easy", "How many renewed loans are there?", "SELECT COUNT(*) FROM loans WHERE renewed", False),
    ("lib-16", "easy", "How many books are e-books?", "SELECT COUNT(*) FROM books WHERE format = 'e_book'", False),
    # --- medium: comparisons, projections, grouping, ranking, dates
    ("lib-17", "medium", "How many books have more than 500 pages?", "SELECT COUNT(*) FROM books WHERE pages > 500", False),
    ("lib-18", "medium", "How many books have between 200 and 300 pages?", "SELECT COUNT(*) FROM books WHERE pages BETWEEN 200 AND 300", False),
    ("lib-19", "medium", "How many loans had a late fee over 2?", "SELECT COUNT(*) FROM loans WHERE late_fee > 2", False),
    ("lib-20", "medium", "How many members have a deposit of at least 30?", "SELECT COUNT(*) FROM members WHERE deposit >= 30", False),
    ("lib-21", "medium", "List the names and emails of inactive student members",
     "SELECT full_name, email FROM members WHERE NOT is_active AND membership_type = 'student'", False),
    ("lib-22", "medium", "How many books are there per genre?", "SELECT genre, COUNT(*) FROM books GROUP BY genre", False),
    ("lib-23", "medium", "Average replacement cost by format",
     "SELECT format, ROUND(AVG(replacement_cost), 2) FROM books GROUP BY format", False),
    ("lib-24", "medium", "Which genre has the most books?",
     "SELECT genre, COUNT(*) AS n FROM books GROUP BY genre ORDER BY n DESC LIMIT 1", True),
    ("lib-25", "medium", "Which membership type has the fewest members?",
     "SELECT membership_type, COUNT(*) AS n FROM members GROUP BY membership_type ORDER BY n ASC LIMIT 1", True),
    ("lib-26", "medium", "How many different countries do authors come from?", "SELECT COUNT(DISTINCT country) FROM authors", False),
    ("lib-27", "medium", "How many members joined in 2023?",
     "SELECT COUNT(*) FROM members WHERE joined_on >= '2023-01-01' AND joined_on < '2024-01-01'", False),
    ("lib-28", "medium", "How many loans were made in March 2024?",
     "SELECT COUNT(*) FROM loans WHERE loaned_on >= '2024-03-01' AND loaned_on < '2024-04-01'", False),
    ("lib-29", "medium", "Number of loans per month in 2025",
     "SELECT substr(loaned_on, 1, 7) AS month, COUNT(*) FROM loans WHERE loaned_on >= '2025-01-01' AND loaned_on < '2026-01-01' GROUP BY month ORDER BY month", True),
    ("lib-30", "medium", "List the 5 books with the most pages",
     "SELECT title, pages FROM books ORDER BY pages DESC LIMIT 5", True),
    ("lib-31", "medium", "How many books were published after 2015?", "SELECT COUNT(*) FROM books WHERE published_year > 2015", False),
    ("lib-32", "medium", "How many loans were not made at the front desk?",
     "SELECT COUNT(*) FROM loans WHERE checkout_channel <> 'front_desk'", False),
    ("lib-33", "medium", "How many loans per branch?",
     "SELECT br.name, COUNT(*) FROM loans l JOIN branches br ON l.branch_id = br.id GROUP BY br.name", False),
    ("lib-34", "medium", "Which book has the highest replacement cost?",
     "SELECT title, replacement_cost FROM books ORDER BY replacement_cost DESC LIMIT 1", True),
    ("lib-35", "medium", "How many loans were due before 2024-02-01?",
     "SELECT COUNT(*) FROM loans WHERE due_on < '2024-02-01'", False),
    # --- hard: joins over two or three tables, fan-out, counts of related rows
    ("lib-36", "hard", "How many loans of science fiction books were made in 2024?",
     "SELECT COUNT(*) FROM loans l JOIN books b ON l.book_id = b.id WHERE b.genre = 'science_fiction' AND l.loaned_on >= '2024-01-01' AND l.loaned_on < '2025-01-01'", False),
    ("lib-37", "hard", "How many books were written by authors from Japan?",
     "SELECT COUNT(*) FROM books b JOIN authors a ON b.author_id = a.id WHERE a.country = 'Japan'", False),
    ("lib-38", "hard", "Average late fee per genre",
     "SELECT b.genre, ROUND(AVG(l.late_fee), 2) FROM loans l JOIN books b ON l.book_id = b.id GROUP BY b.genre", False),
    ("lib-39", "hard", "Total late fees per branch city",
     "SELECT br.city, SUM(l.late_fee) FROM loans l JOIN branches br ON l.branch_id = br.id GROUP BY br.city", False),
    ("lib-40", "hard", "Top 3 authors by number of books",
     "SELECT a.full_name, COUNT(*) AS n FROM books b JOIN authors a ON b.author_id = a.id GROUP BY a.full_name ORDER BY n DESC LIMIT 3", True),
    ("lib-41", "hard", "How many loans were made by student members at the Harbour View branch?",
     "SELECT COUNT(*) FROM loans l JOIN members m ON l.member_id = m.id JOIN branches br ON l.branch_id = br.id WHERE m.membership_type = 'student' AND br.name = 'Harbour View'", False),
    ("lib-42", "hard", "How many members borrowed a poetry book?",
     "SELECT COUNT(DISTINCT l.member_id) FROM loans l JOIN books b ON l.book_id = b.id WHERE b.genre = 'poetry'", False),
    ("lib-43", "hard", "What is the total deposit of members who borrowed a poetry book?",
     "SELECT SUM(deposit) FROM members WHERE id IN (SELECT l.member_id FROM loans l JOIN books b ON l.book_id = b.id WHERE b.genre = 'poetry')", False),
    ("lib-44", "hard", "How many members have more than 25 loans?",
     "SELECT COUNT(*) FROM members m WHERE (SELECT COUNT(*) FROM loans l WHERE l.member_id = m.id) > 25", False),
    ("lib-45", "hard", "How many members have no loans?",
     "SELECT COUNT(*) FROM members m WHERE NOT EXISTS (SELECT 1 FROM loans l WHERE l.member_id = m.id)", False),
    ("lib-46", "hard", "Which branch has the most loans by senior members?",
     "SELECT br.name, COUNT(*) AS n FROM loans l JOIN members m ON l.member_id = m.id JOIN branches br ON l.branch_id = br.id WHERE m.membership_type = 'senior' GROUP BY br.name ORDER BY n DESC LIMIT 1", True),
    ("lib-47", "hard", "How many distinct books were borrowed by members of the Riverside branch?",
     "SELECT COUNT(DISTINCT l.book_id) FROM loans l JOIN members m ON l.member_id = m.id JOIN branches br ON m.home_branch_id = br.id WHERE br.name = 'Riverside'", False),
    ("lib-48", "hard", "What is the total replacement cost of books borrowed in 2025?",
     "SELECT SUM(replacement_cost) FROM books WHERE id IN (SELECT book_id FROM loans WHERE loaned_on >= '2025-01-01' AND loaned_on < '2026-01-01')", False),
    # --- a second batch, written after the planner, in other words: paraphrases and questions
    # the planner should rather ask about than answer wrong.
    ("lib-49", "easy", "Count the authors from Canada.", "SELECT COUNT(*) FROM authors WHERE country = 'Canada'", False),
    ("lib-50", "easy", "How many audiobooks are in the catalogue?", "SELECT COUNT(*) FROM books WHERE format = 'audiobook'", False),
    ("lib-51", "easy", "What's the average deposit of senior members?", "SELECT ROUND(AVG(deposit), 2) FROM members WHERE membership_type = 'senior'", False),
    ("lib-52", "easy", "How many loans were renewed?", "SELECT COUNT(*) FROM loans WHERE renewed", False),
    ("lib-53", "easy", "Show the emails of members who joined in 2025",
     "SELECT email FROM members WHERE joined_on >= '2025-01-01' AND joined_on < '2026-01-01'", False),
    ("lib-54", "medium", "How many hardcover books have fewer than 150 pages?", "SELECT COUNT(*) FROM books WHERE format = 'hardcover' AND pages < 150", False),
    ("lib-55", "medium", "How many branches are there per city?", "SELECT city, COUNT(*) FROM branches GROUP BY city", False),
    ("lib-56", "medium", "What is the total late fee per checkout channel?", "SELECT checkout_channel, SUM(late_fee) FROM loans GROUP BY checkout_channel", False),
    ("lib-57", "medium", "Number of members by membership type", "SELECT membership_type, COUNT(*) FROM members GROUP BY membership_type", False),
    ("lib-58", "medium", "How many books were published before 1980?", "SELECT COUNT(*) FROM books WHERE published_year < 1980", False),
    ("lib-59", "medium", "Average pages per genre", "SELECT genre, ROUND(AVG(pages), 2) FROM books GROUP BY genre", False),
    ("lib-60", "medium", "List the 3 cheapest books", "SELECT title, replacement_cost FROM books ORDER BY replacement_cost ASC LIMIT 3", True),
    ("lib-61", "medium", "How many loans were returned in 2024?",
     "SELECT COUNT(*) FROM loans WHERE returned_on >= '2024-01-01' AND returned_on < '2025-01-01'", False),
    ("lib-62", "medium", "How many members are not students?", "SELECT COUNT(*) FROM members WHERE membership_type <> 'student'", False),
    ("lib-63", "medium", "How many loans per year?", "SELECT substr(loaned_on, 1, 4) AS y, COUNT(*) FROM loans GROUP BY y ORDER BY y", True),
    ("lib-64", "hard", "Which author has written the most books?",
     "SELECT a.full_name, COUNT(*) AS n FROM books b JOIN authors a ON b.author_id = a.id GROUP BY a.full_name ORDER BY n DESC LIMIT 1", True),
    ("lib-65", "hard", "How many loans were made at branches with a cafe?",
     "SELECT COUNT(*) FROM loans l JOIN branches br ON l.branch_id = br.id WHERE br.has_cafe", False),
    ("lib-66", "hard", "What is the average late fee for loans of crime books?",
     "SELECT ROUND(AVG(l.late_fee), 2) FROM loans l JOIN books b ON l.book_id = b.id WHERE b.genre = 'crime'", False),
    ("lib-67", "hard", "How many books by French authors?",
     "SELECT COUNT(*) FROM books b JOIN authors a ON b.author_id = a.id WHERE a.country = 'France'", False),
    ("lib-68", "hard", "How many active members borrowed a travel book in 2025?",
     "SELECT COUNT(*) FROM members WHERE is_active AND id IN (SELECT l.member_id FROM loans l JOIN books b ON l.book_id = b.id WHERE b.genre = 'travel' AND l.loaned_on >= '2025-01-01' AND l.loaned_on < '2026-01-01')", False),
    ("lib-69", "hard", "Total deposit of members per home branch",
     "SELECT br.name, SUM(m.deposit) FROM members m JOIN branches br ON m.home_branch_id = br.id GROUP BY br.name", False),
    ("lib-70", "hard", "Which member has the most loans?",
     "SELECT m.full_name, COUNT(*) AS n FROM loans l JOIN members m ON l.member_id = m.id GROUP BY m.full_name ORDER BY n DESC LIMIT 1", True),
    ("lib-71", "hard", "How many books have never been borrowed?",
     "SELECT COUNT(*) FROM books b WHERE NOT EXISTS (SELECT 1 FROM loans l WHERE l.book_id = b.id)", False),
    ("lib-72", "hard", "Average number of loans per member",
     "SELECT ROUND(1.0 * (SELECT COUNT(*) FROM loans) / (SELECT COUNT(*) FROM members), 2)", False),
    ("lib-73", "medium", "List the titles of books with more than 800 pages", "SELECT title FROM books WHERE pages > 800", False),
    ("lib-74", "medium", "How many loans did the Northgate branch make?",
     "SELECT COUNT(*) FROM loans l JOIN branches br ON l.branch_id = br.id WHERE br.name = 'Northgate'", False),
]


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "samples", "sql")
    branches, authors, books, members, loans = generate()
    text = render([("branches", branches), ("authors", authors), ("books", books),
                   ("members", members), ("loans", loans)])
    con = sqlite3.connect(":memory:")
    con.executescript(text)
    common.write_atomic(os.path.join(out_dir, "library.sql"), text)
    common.write_atomic(os.path.join(out_dir, "library_eval.jsonl"), common.eval_lines(con, QUESTIONS))


if __name__ == "__main__":
    main()
