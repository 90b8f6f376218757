#!/usr/bin/env python3
"""Write the eval questions of the audit sample (samples/sql/audit_eval.jsonl) for `qa sql eval`.

    scripts/gen-sql-eval-audit.py [OUT.jsonl]

Every expected result comes from the hand-written SQL next to its question, run on an in-memory
SQLite copy of samples/sql/audit.sql (independently of `qa`). Run with the semantic file:
    qa sql eval samples/sql/audit_eval.jsonl --db samples/sql/audit.db \
        --semantic samples/sql/audit_semantic.toml
"""

import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sql_sample_common as common  # noqa: E402

# (id, difficulty, question, hand-written SQL, order_matters)
QUESTIONS = [
    ("aud-01", "easy", "How many findings are there?", "SELECT COUNT(*) FROM findings", False),
    ("aud-02", "easy", "How many critical findings are there?", "SELECT COUNT(*) FROM findings WHERE severity = 'Critical'", False),
    ("aud-03", "easy", "How many open findings in 2024?",
     "SELECT COUNT(*) FROM findings WHERE status = 'Open' AND reported_on >= '2024-01-01' AND reported_on < '2025-01-01'", False),
    ("aud-04", "easy", "How many urgent issues are unresolved?", "SELECT COUNT(*) FROM findings WHERE severity = 'Critical' AND status = 'Open'", False),
    ("aud-05", "easy", "How many findings are not closed?", "SELECT COUNT(*) FROM findings WHERE status <> 'Closed'", False),
    ("aud-06", "easy", "What is the highest estimated cost of a critical finding?",
     "SELECT MAX(estimated_cost) FROM findings WHERE severity = 'Critical'", False),
    ("aud-07", "easy", "How many external audits are there?", "SELECT COUNT(*) FROM audits WHERE audit_type = 'External'", False),
    ("aud-08", "easy", "List the departments in the North region", "SELECT name FROM departments WHERE region = 'North'", False),
    ("aud-09", "medium", "How many critical findings per department?",
     "SELECT d.name, COUNT(*) FROM findings f JOIN audits a ON f.audit_id = a.id JOIN departments d ON a.department_id = d.id WHERE f.severity = 'Critical' GROUP BY d.name", False),
    ("aud-10", "medium", "average cost of urgent issues by category",
     "SELECT category, ROUND(AVG(estimated_cost), 2) FROM findings WHERE severity = 'Critical' GROUP BY category", False),
    ("aud-11", "medium", "Number of findings per month in 2025",
     "SELECT substr(reported_on, 1, 7) AS m, COUNT(*) FROM findings WHERE reported_on >= '2025-01-01' AND reported_on < '2026-01-01' GROUP BY m ORDER BY m", True),
    ("aud-12", "medium", "List the 5 most expensive critical findings",
     "SELECT id, estimated_cost FROM findings WHERE severity = 'Critical' ORDER BY estimated_cost DESC, id LIMIT 5", False),
    ("aud-13", "medium", "total estimated cost of open findings by region",
     "SELECT d.region, SUM(f.estimated_cost) FROM findings f JOIN audits a ON f.audit_id = a.id JOIN departments d ON a.department_id = d.id WHERE f.status = 'Open' GROUP BY d.region", False),
    ("aud-14", "medium", "How many findings in closed audits?",
     "SELECT COUNT(*) FROM findings f JOIN audits a ON f.audit_id = a.id WHERE a.status = 'Closed'", False),
    ("aud-15", "medium", "Which department has the most open findings?",
     "SELECT d.name, COUNT(*) AS n FROM findings f JOIN audits a ON f.audit_id = a.id JOIN departments d ON a.department_id = d.id WHERE f.status = 'Open' GROUP BY d.name ORDER BY n DESC, d.name LIMIT 1", True),
    ("aud-16", "medium", "top 3 categories by total cost",
     "SELECT category, SUM(estimated_cost) AS t FROM findings GROUP BY category ORDER BY t DESC LIMIT 3", True),
    ("aud-17", "medium", "How many audits were closed in 2024?",
     "SELECT COUNT(*) FROM audits WHERE closed_on >= '2024-01-01' AND closed_on < '2025-01-01'", False),
    ("aud-18", "medium", "How many findings have an estimated cost over 100000?", "SELECT COUNT(*) FROM findings WHERE estimated_cost > 100000", False),
    ("aud-19", "medium", "Average estimated cost per severity",
     "SELECT severity, ROUND(AVG(estimated_cost), 2) FROM findings GROUP BY severity", False),
    ("aud-20", "medium", "How many audits per type?", "SELECT audit_type, COUNT(*) FROM audits GROUP BY audit_type", False),
    ("aud-21", "hard", "Which auditor leads the most audits?",
     "SELECT au.full_name, COUNT(*) AS n FROM audits a JOIN auditors au ON a.lead_auditor_id = au.id GROUP BY au.full_name ORDER BY n DESC LIMIT 1", True),
    ("aud-22", "hard", "top 2 departments by number of findings",
     "SELECT d.name, COUNT(*) AS n FROM findings f JOIN audits a ON f.audit_id = a.id JOIN departments d ON a.department_id = d.id GROUP BY d.name ORDER BY n DESC LIMIT 2", True),
    ("aud-23", "hard", "How many audits have more than 15 findings?",
     "SELECT COUNT(*) FROM audits a WHERE (SELECT COUNT(*) FROM findings f WHERE f.audit_id = a.id) > 15", False),
    ("aud-24", "hard", "How many audits have no findings?",
     "SELECT COUNT(*) FROM audits a WHERE NOT EXISTS (SELECT 1 FROM findings f WHERE f.audit_id = a.id)", False),
    ("aud-25", "hard", "How many departments had a regulatory audit in 2025?",
     "SELECT COUNT(DISTINCT department_id) FROM audits WHERE audit_type = 'Regulatory' AND started_on >= '2025-01-01' AND started_on < '2026-01-01'", False),
]


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "samples", "sql", "audit_eval.jsonl")
    con = sqlite3.connect(":memory:")
    with open(os.path.join(root, "samples", "sql", "audit.sql"), encoding="utf-8") as f:
        con.executescript(f.read())
    common.write_atomic(out, common.eval_lines(con, QUESTIONS))


if __name__ == "__main__":
    main()
