"""Shared by the SQL sample generators (scripts/gen-sample-*.py) and eval writers
(scripts/gen-sql-eval-*.py): portable literals, multi-row INSERTs, atomic writes, and expected
rows computed by hand-written SQL on SQLite."""

import datetime as dt
import json
import os

CHUNK = 500


def quote(text):
    return "'" + text.replace("'", "''") + "'"


class Money:
    """A NUMERIC value from integer cents, printed with two decimals."""

    def __init__(self, cents):
        self.text = "%d.%02d" % (cents // 100, cents % 100)


def lit(v):
    """A value as a SQL literal both SQLite and PostgreSQL read the same way."""
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, dt.date):
        return quote(v.isoformat())
    if isinstance(v, Money):
        return v.text
    return quote(str(v))


def render(header, ddl, columns, tables):
    """Header comment lines, the DDL, then INSERTs of at most CHUNK rows per table."""
    out = list(header) + ["", ddl]
    for name, rows in tables:
        for start in range(0, len(rows), CHUNK):
            chunk = rows[start:start + CHUNK]
            out.append("INSERT INTO %s (%s) VALUES" % (name, columns[name]))
            out.append(",\n".join("(" + ", ".join(lit(v) for v in row) + ")" for row in chunk) + ";")
            out.append("")
    return "\n".join(out)


def write_atomic(path, text):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    os.replace(tmp, path)


def expected_rows(con, sql, order_matters):
    """Columns and rows of `sql` (floats at 2 decimals). A ranked answer must not depend on how
    ties are broken: the row after the last one must differ in its last column."""
    cur = con.execute(sql)
    cols = [d[0] for d in cur.description]
    rows = [[round(v, 2) if isinstance(v, float) else v for v in r] for r in cur.fetchall()]
    if order_matters and " LIMIT " in sql:
        head, limit = sql.rsplit(" LIMIT ", 1)
        more = con.execute("%s LIMIT %d" % (head, int(limit) + 1)).fetchall()
        if len(more) > len(rows) and rows and more[len(rows)][-1] == more[len(rows) - 1][-1]:
            raise SystemExit("tie at the limit of %r: %r" % (sql, more))
    return cols, rows


def eval_lines(con, questions):
    """JSON Lines for `qa sql eval` from (id, difficulty, question, sql, order_matters)."""
    lines = []
    for qid, difficulty, question, sql, order in questions:
        cols, rows = expected_rows(con, sql, order)
        lines.append(json.dumps({"id": qid, "question": question, "difficulty": difficulty,
                                 "expected": {"columns": cols, "rows": rows},
                                 "order_matters": order, "sql": sql}, ensure_ascii=False))
    return "\n".join(lines) + "\n"
