#!/usr/bin/env python3
"""Compute the `expected` answers of the `qa es` question sets in this directory.

For each set NAME (tickets, inspections, sightings) it loads NAME.jsonl into an in-memory SQLite
table NAME (one column per field, booleans as 1/0, a field missing from a record is NULL), runs
the gold `sql` of every question in NAME_eval.jsonl and rewrites its `expected` field as
{"columns": [...], "rows": [[...]]} (floats rounded to 2 decimals). Questions of class `absent`
keep `expected: null`.

It also checks the sets: unique ids, known classes, no empty result, at most 50 rows, and no tie
at the cut-off of an `ORDER BY ... LIMIT n` query. It exits with status 1 if a check fails.

    python3 bench/structured/es/expected.py            # rewrite the files
    python3 bench/structured/es/expected.py --check    # only check, write nothing
"""
import json
import os
import re
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SETS = ["tickets", "inspections", "sightings", "listings", "collection", "parcels", "flights", "repairs", "reviews", "charging", "bikeshare", "permits", "dispatch_calls", "course_enrolments", "warehouse_picks", "fitness_classes", "customs_declarations", "grain_deliveries", "library_loans", "lost_property", "lab_results"]
CLASSES = {"count", "filter", "aggregate", "top", "search", "text", "absent"}
MAX_ROWS = 50


def load_table(name):
    records = []
    with open(os.path.join(HERE, f"{name}.jsonl"), encoding="utf-8") as f:
        for line in f:
            if line.strip():
                records.append(json.loads(line))
    columns = []
    for r in records:
        for k in r:
            if k not in columns:
                columns.append(k)
    db = sqlite3.connect(":memory:")
    db.execute(f'CREATE TABLE {name} ({", ".join(f"{chr(34)}{c}{chr(34)}" for c in columns)})')
    rows = []
    for r in records:
        row = []
        for c in columns:
            v = r.get(c)
            if isinstance(v, bool):
                v = 1 if v else 0
            row.append(v)
        rows.append(row)
    db.executemany(f'INSERT INTO {name} VALUES ({", ".join("?" for _ in columns)})', rows)
    return db, len(records), columns


def clean(v):
    if isinstance(v, float):
        return round(v, 2)
    return v


def tie_at_cutoff(db, sql):
    """True when the row after the LIMIT has the same ordering value as the last row kept."""
    m = re.search(r"ORDER BY (.+?)(?:\s+(DESC|ASC))?\s+LIMIT\s+(\d+)\s*;?\s*$", sql, re.I | re.S)
    if not m:
        return False
    expr, n = m.group(1), int(m.group(3))
    head = sql[: m.start()]
    sel = re.match(r"\s*SELECT\s+(.+?)\s+FROM\s", head, re.I | re.S)
    if not sel or "," in expr:
        return False
    # Ordered by an alias of the select list ("ORDER BY avg_score"): the whole query without its
    # LIMIT, compared on that column; else the ordering expression alone.
    cur = db.execute(head + f" ORDER BY {expr} {m.group(2) or ''}")
    names = [d[0] for d in cur.description]
    if expr.strip() in names:
        k = names.index(expr.strip())
        vals = [r[k] for r in cur.fetchall()]
    else:
        probe = f"SELECT {expr} AS __k FROM " + head[sel.end():] + f" ORDER BY {expr} {m.group(2) or ''}"
        vals = [r[0] for r in db.execute(probe).fetchall()]
    return len(vals) > n and vals[n - 1] == vals[n]


def main():
    check_only = "--check" in sys.argv
    problems = []
    seen_ids = set()
    for name in SETS:
        db, n_records, columns = load_table(name)
        path = os.path.join(HERE, f"{name}_eval.jsonl")
        out = []
        with open(path, encoding="utf-8") as f:
            lines = [l for l in f if l.strip()]
        per_class = {}
        for ln, line in enumerate(lines, 1):
            q = json.loads(line)
            qid = q.get("id")
            if qid in seen_ids:
                problems.append(f"{path}:{ln}: duplicate id {qid}")
            seen_ids.add(qid)
            cls = q.get("class")
            per_class[cls] = per_class.get(cls, 0) + 1
            if cls not in CLASSES:
                problems.append(f"{qid}: unknown class {cls!r}")
            if cls == "absent":
                if q.get("must_ask") is not True or q.get("expected") is not None or not q.get("absent"):
                    problems.append(f"{qid}: absent question needs must_ask true, expected null, absent")
                out.append(q)
                continue
            try:
                cur = db.execute(q["sql"])
            except sqlite3.Error as e:
                problems.append(f"{qid}: SQL error {e}: {q['sql']}")
                out.append(q)
                continue
            cols = [d[0] for d in cur.description]
            rows = [[clean(v) for v in r] for r in cur.fetchall()]
            if not rows or all(v is None for r in rows for v in r):
                problems.append(f"{qid}: empty result")
            if len(rows) > MAX_ROWS:
                problems.append(f"{qid}: {len(rows)} rows (> {MAX_ROWS})")
            if cols == ["COUNT(*)"] and rows and rows[0][0] == 0:
                problems.append(f"{qid}: count is 0")
            if tie_at_cutoff(db, q["sql"]):
                problems.append(f"{qid}: tie at the LIMIT cut-off")
            q["expected"] = {"columns": cols, "rows": rows}
            q.setdefault("order_matters", False)
            out.append(q)
        if not check_only:
            with open(path, "w", encoding="utf-8") as f:
                for q in out:
                    f.write(json.dumps(q, ensure_ascii=False) + "\n")
        summary = ", ".join(f"{k} {v}" for k, v in sorted(per_class.items()))
        print(f"{name}: {n_records} records, {len(columns)} fields, {len(out)} questions ({summary})")
    for p in problems:
        print("PROBLEM:", p)
    # every written line must parse again
    for name in SETS:
        with open(os.path.join(HERE, f"{name}_eval.jsonl"), encoding="utf-8") as f:
            for line in f:
                json.loads(line)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
