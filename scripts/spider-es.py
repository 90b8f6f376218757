#!/usr/bin/env python3
"""Spider's single-table questions as an Elasticsearch evaluation (issue 25).

Usage: python3 scripts/spider-es.py QA_BIN SPIDER_DIR OUT_DIR [--dbs a,b] [-- extra qa args]
  e.g. python3 scripts/spider-es.py target/release/qa ../shared/datasets/spider-dev /tmp/spider-es -- --llm none

Every table of every database becomes an embedded index `<db>__<table>` (one JSON record per
row, columns as fields, built with `qa es index`); every question whose gold SQL reads one table
(no JOIN, no nested SELECT, no set operation) becomes a line of `<index>_eval.jsonl` with the
gold rows as its expected rows (order compared when the gold SQL has ORDER BY). Then
`qa es eval --json` runs each file; the summary (right / wrong / asked / errored, overall and by
class: single = no aggregate, aggregate = COUNT/SUM/AVG/MIN/MAX or GROUP BY) is printed as JSON
and every question's result is written to OUT_DIR/results.json.
"""
import json, os, re, sqlite3, subprocess, sys
from collections import Counter, defaultdict

args = sys.argv[1:]
extra = []
if "--" in args:
    i = args.index("--"); extra = args[i + 1:]; args = args[:i]
qa, spider, out = args[0], args[1], args[2]
dbs = set(args[args.index("--dbs") + 1].split(",")) if "--dbs" in args else None
os.makedirs(out, exist_ok=True)
data = os.path.join(out, "data")
os.makedirs(data, exist_ok=True)

questions = [json.loads(l) for l in open(os.path.join(spider, "questions.jsonl"))]
if dbs:
    questions = [q for q in questions if q["db_id"] in dbs]


def single_table(sql):
    s = sql.lower()
    if " join " in s or s.count("select") > 1 or re.search(r"\b(union|intersect|except)\b", s):
        return None
    m = re.search(r"\bfrom\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?:as\s+\w+)?\s*(?:$|where|group|order|limit|;|having)", sql, re.I)
    return m.group(1) if m else None


def klass(sql):
    s = sql.lower()
    return "aggregate" if "group by" in s or re.search(r"\b(count|sum|avg|min|max)\s*\(", s) else "single"


def index_name(db, table):
    return re.sub(r"[^a-z0-9_]", "_", f"{db}__{table}".lower())


def value(v):
    if isinstance(v, bytes):
        return v.decode(errors="replace")
    if isinstance(v, float):
        return round(v, 2)
    return v


by_index = defaultdict(list)
for n, q in enumerate(questions):
    table = single_table(q["gold_sql"])
    if not table:
        continue
    con = sqlite3.connect(f"file:{os.path.join(spider, 'databases', q['db_id'] + '.sqlite')}?mode=ro", uri=True)
    con.text_factory = lambda b: b.decode(errors="replace")
    try:
        names = {r[0].lower(): r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        real = names.get(table.lower())
        if not real:
            continue
        cur = con.execute(q["gold_sql"])
        cols = [d[0] for d in cur.description]
        rows = [[value(v) for v in r] for r in cur.fetchall()]
    except Exception:
        continue
    finally:
        con.close()
    if not rows:
        continue
    name = index_name(q["db_id"], real)
    by_index[(q["db_id"], real, name)].append({
        "id": q.get("id", f"spider_{n}"), "question": q["question"], "class": klass(q["gold_sql"]),
        "expected": {"columns": cols, "rows": rows}, "order_matters": "order by" in q["gold_sql"].lower(),
        "gold_sql": q["gold_sql"],
    })

summary = defaultdict(Counter)
results = []
for (db, table, name), qs in sorted(by_index.items()):
    con = sqlite3.connect(f"file:{os.path.join(spider, 'databases', db + '.sqlite')}?mode=ro", uri=True)
    con.text_factory = lambda b: b.decode(errors="replace")
    cur = con.execute(f'SELECT * FROM "{table}"')
    cols = [d[0] for d in cur.description]
    records = os.path.join(out, f"{name}.jsonl")
    with open(records, "w") as f:
        for r in cur.fetchall():
            f.write(json.dumps({c: value(v) for c, v in zip(cols, r) if v is not None}) + "\n")
    con.close()
    evalf = os.path.join(out, f"{name}_eval.jsonl")
    with open(evalf, "w") as f:
        for q in qs:
            f.write(json.dumps(q) + "\n")
    r = subprocess.run([qa, "--data-dir", data, "-q", "es", "index", records, "--name", name], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"index {name} failed: {r.stderr.strip()}", file=sys.stderr)
        continue
    r = subprocess.run([qa, "--data-dir", data, "-q"] + extra + ["es", "eval", evalf, "--index", name, "--json"], capture_output=True, text=True)
    try:
        o = json.loads(r.stdout)
    except ValueError:
        print(f"eval {name} failed: {r.stderr.strip()}", file=sys.stderr)
        continue
    for rec in o["questions"]:
        g = {"right": "right", "wrong": "confident_wrong", "asked": "asked"}.get(rec["grade"], "other")
        summary["all"][g] += 1
        summary[rec.get("class") or "single"][g] += 1
        rec["index"] = name
        results.append(rec)
json.dump(results, open(os.path.join(out, "results.json"), "w"), indent=1)
print(json.dumps({k: dict(v, n=sum(v.values())) for k, v in summary.items()}))
