#!/usr/bin/env python3
"""Routing accuracy of `qa route` (issue 25: "the router's figures do not drop").

Usage: python3 scripts/route-eval.py QA_BIN WORK_DIR

Every question of the SQL sets (the three development databases of bench/structured/ and the two
samples) must go to `sql`, every question of the three development indexes to `es`, each with the
documents index of sample_corpus/ configured beside it; and every question of
bench/sample_corpus_eval.jsonl must stay with the `documents` when each of those sources is
configured. Questions marked `must_ask` (they name what the source lacks) are left out. Prints
right / total per set and overall; WORK_DIR keeps the built indexes and databases between runs.
"""
import json, os, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

qa, work = sys.argv[1], os.path.abspath(sys.argv[2])
repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
data = os.path.join(work, "data")
os.makedirs(data, exist_ok=True)
base = ["-q", "--data-dir", data, "--llm", "none"]

def run(args, env=None):
    return subprocess.run([qa] + args, capture_output=True, text=True, env=dict(os.environ, **(env or {})))

if not os.path.exists(os.path.join(data, "vector_store_outputs")):
    r = run(["index", os.path.join(repo, "sample_corpus")] + base)
    if r.returncode != 0:
        sys.exit("qa index failed: " + r.stderr[-2000:])
def load(sql_file, db):
    if not os.path.exists(db):
        import sqlite3
        con = sqlite3.connect(db + ".tmp")
        con.executescript(open(sql_file).read())
        con.commit(); con.close()
        os.replace(db + ".tmp", db)
    return db

sql_sets = {}
for name in ["vet_clinic", "water_utility", "clinical_trials"]:
    db = load(os.path.join(repo, "bench/structured", name + ".sql"), os.path.join(work, name + ".db"))
    sql_sets[name] = (db, os.path.join(repo, "bench/structured", name + "_eval.jsonl"))
for name in ["audit", "library"]:
    db = load(os.path.join(repo, "samples/sql", name + ".sql"), os.path.join(work, name + ".db"))
    sql_sets[name] = (db, os.path.join(repo, "samples/sql", name + "_eval.jsonl"))
es_sets = {}
for name in ["tickets", "inspections", "sightings"]:
    if not os.path.exists(os.path.join(data, "es_indexes", name)):
        r = run(["es", "index", os.path.join(repo, "bench/structured/es", name + ".jsonl"), "--name", name] + base)
        if r.returncode != 0:
            sys.exit("qa es index failed: " + r.stderr[-2000:])
    es_sets[name] = os.path.join(repo, "bench/structured/es", name + "_eval.jsonl")

def questions(path):
    return [q["question"] for q in map(json.loads, open(path)) if not q.get("must_ask")]

def target(question, env):
    r = run(["route", question, "--json"] + base, env)
    try:
        return json.loads(r.stdout)["target"]
    except Exception:
        return "error"

jobs = []  # (set label, question, env, expected)
for name, (db, path) in sql_sets.items():
    jobs += [(name, q, {"QA_SQL_URL": "sqlite://" + db}, "sql") for q in questions(path)]
for name, path in es_sets.items():
    jobs += [(name, q, {"QA_ES": name}, "es") for q in questions(path)]
docs = questions(os.path.join(repo, "bench/sample_corpus_eval.jsonl"))
for name, (db, _) in sql_sets.items():
    jobs += [("documents beside " + name, q, {"QA_SQL_URL": "sqlite://" + db}, "documents") for q in docs]
for name in es_sets:
    jobs += [("documents beside " + name, q, {"QA_ES": name}, "documents") for q in docs]
with ThreadPoolExecutor(2) as ex:
    got = list(ex.map(lambda j: target(j[1], j[2]), jobs))
tally = {}
for (label, q, _, want), t in zip(jobs, got):
    r = tally.setdefault(label, [0, 0])
    r[1] += 1
    r[0] += t == want
    if t != want and os.environ.get("ROUTE_EVAL_MISSES"):
        print(f"  miss [{label}] want {want} got {t}: {q}", file=sys.stderr)
for label, (ok, n) in tally.items():
    print(f"{label:32} {ok:4}/{n:<4}")
ok = sum(v[0] for v in tally.values()); n = sum(v[1] for v in tally.values())
print(f"{'all':32} {ok:4}/{n:<4} ({100 * ok / n:.1f}%)")
