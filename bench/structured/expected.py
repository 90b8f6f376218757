#!/usr/bin/env python3
"""Fill the "expected" field of every bench/structured/NAME_eval.jsonl.

For each NAME_eval.jsonl next to this script, NAME.sql is loaded into an in-memory SQLite
database, every gold "sql" is run and its result is written back as
{"columns": [...], "rows": [[...], ...]}.  Floats are rounded to 2 decimals.  Lines with
"must_ask": true keep "expected": null.  Warnings are printed for empty results and results
with more than 100 rows.  Usage: python3 bench/structured/expected.py [NAME ...]
"""
import glob
import json
import os
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def norm(v):
    if isinstance(v, float):
        return round(v, 2)
    return v


def near_boundary(v):
    """True for a float whose third decimal sits on a rounding boundary (x.xx5), where
    engines that sum or average in other precisions may round the other way."""
    if not isinstance(v, float):
        return False
    frac = abs(v * 100) % 1
    return abs(frac - 0.5) < 1e-4


def run(name):
    sql_path = os.path.join(HERE, name + ".sql")
    eval_path = os.path.join(HERE, name + "_eval.jsonl")
    db = sqlite3.connect(":memory:")
    with open(sql_path, encoding="utf-8") as f:
        db.executescript(f.read())
    out, problems = [], 0
    with open(eval_path, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f if line.strip()]
    for obj in lines:
        if obj.get("must_ask"):
            obj["expected"] = None
        else:
            cur = db.execute(obj["sql"])
            cols = [d[0] for d in cur.description]
            raw = cur.fetchall()
            rows = [[norm(v) for v in r] for r in raw]
            if any(near_boundary(v) for r in raw for v in r):
                print("WARNING %s: a value lies on a rounding boundary" % obj["id"])
                problems += 1
            obj["expected"] = {"columns": cols, "rows": rows}
            if not rows or all(v is None for v in rows[0]):
                print("WARNING %s: empty result" % obj["id"])
                problems += 1
            if len(rows) > 100:
                print("WARNING %s: %d rows" % (obj["id"], len(rows)))
                problems += 1
        out.append(json.dumps(obj, ensure_ascii=False))
    with open(eval_path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(out) + "\n")
    print("%s: %d questions, %d warnings" % (name, len(lines), problems))
    return problems


def main():
    names = sys.argv[1:] or sorted(os.path.basename(p)[:-len("_eval.jsonl")]
                                   for p in glob.glob(os.path.join(HERE, "*_eval.jsonl")))
    problems = sum(run(n) for n in names)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
