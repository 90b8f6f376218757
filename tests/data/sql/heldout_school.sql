-- A held-out schema for the SQL planner (tests/it/sql_eval.rs): a small school, with a
-- many-to-many table (enrollments), a timestamp, a person's name split over two columns and an
-- optional key. Written by hand, with the questions of heldout_school.jsonl and their results,
-- before the planner was run on it; no planner rule may be fitted to it. Portable SQL: loads
-- into SQLite and PostgreSQL alike.

CREATE TABLE departments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    building TEXT NOT NULL
);

CREATE TABLE teachers (
    id INTEGER PRIMARY KEY,
    full_name TEXT NOT NULL,
    department_id INTEGER NOT NULL REFERENCES departments(id),
    hired_at TIMESTAMP NOT NULL,
    is_tenured BOOLEAN NOT NULL,
    salary NUMERIC(9,2) NOT NULL
);

CREATE TABLE courses (
    id INTEGER PRIMARY KEY,
    code TEXT NOT NULL,
    title TEXT NOT NULL,
    department_id INTEGER NOT NULL REFERENCES departments(id),
    credits INTEGER NOT NULL,
    teacher_id INTEGER NOT NULL REFERENCES teachers(id),
    max_seats INTEGER NOT NULL
);

CREATE TABLE students (
    id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    enrolled_year INTEGER NOT NULL,
    full_time BOOLEAN NOT NULL,
    gpa NUMERIC(3,2) NOT NULL,
    advisor_id INTEGER REFERENCES teachers(id)
);

CREATE TABLE enrollments (
    id INTEGER PRIMARY KEY,
    student_id INTEGER NOT NULL REFERENCES students(id),
    course_id INTEGER NOT NULL REFERENCES courses(id),
    term TEXT NOT NULL,
    grade NUMERIC(3,1)
);

INSERT INTO departments (id, name, building) VALUES
    (1, 'Biology', 'North Hall'), (2, 'History', 'Main Building'), (3, 'Mathematics', 'North Hall');

INSERT INTO teachers (id, full_name, department_id, hired_at, is_tenured, salary) VALUES
    (1, 'Ada Park', 3, '2015-08-20 09:00:00', TRUE, 82000.00),
    (2, 'Ben Ortiz', 1, '2019-01-07 09:00:00', FALSE, 64000.00),
    (3, 'Cleo Grant', 2, '2012-09-01 09:00:00', TRUE, 78000.00),
    (4, 'Dan Moss', 1, '2021-08-15 09:00:00', FALSE, 59000.00);

INSERT INTO courses (id, code, title, department_id, credits, teacher_id, max_seats) VALUES
    (1, 'BIO101', 'Cell Biology', 1, 4, 2, 30),
    (2, 'BIO205', 'Genetics', 1, 3, 4, 20),
    (3, 'HIS110', 'World History', 2, 3, 3, 40),
    (4, 'MAT120', 'Calculus', 3, 4, 1, 35),
    (5, 'MAT220', 'Linear Algebra', 3, 3, 1, 25),
    (6, 'HIS300', 'Medieval Europe', 2, 2, 3, 15),
    (7, 'MAT310', 'Number Theory', 3, 3, 1, 10);

INSERT INTO students (id, first_name, last_name, enrolled_year, full_time, gpa, advisor_id) VALUES
    (1, 'Ana', 'Lopez', 2022, TRUE, 3.80, 1),
    (2, 'Bo', 'Chen', 2023, TRUE, 3.20, 2),
    (3, 'Cy', 'Diaz', 2023, FALSE, 2.90, NULL),
    (4, 'Di', 'Evans', 2024, TRUE, 3.60, 3),
    (5, 'Ed', 'Fox', 2024, FALSE, 2.50, NULL),
    (6, 'Flo', 'Gray', 2022, TRUE, 3.95, 1);

INSERT INTO enrollments (id, student_id, course_id, term, grade) VALUES
    (1, 1, 4, 'Fall 2024', 3.6), (2, 1, 5, 'Spring 2025', NULL), (3, 2, 1, 'Fall 2024', 3.0),
    (4, 2, 2, 'Spring 2025', NULL), (5, 3, 3, 'Fall 2024', 2.7), (6, 4, 1, 'Fall 2024', 3.8),
    (7, 4, 3, 'Spring 2025', NULL), (8, 6, 4, 'Fall 2024', 4.0), (9, 6, 5, 'Spring 2025', 3.8),
    (10, 6, 2, 'Fall 2024', 3.5);
