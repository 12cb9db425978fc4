"""``--where``: one boolean expression over the store's columns, checked on DuckDB's own parse.

The expression is pasted into queries (``... WHERE (expr)``), so text that closes the
parenthesis and goes on (``1=1) UNION ALL (SELECT ... REPLACE ...) --``) used to add rows
of its own making and could flip the ``compare`` gate.  Checking that the text parses as one
``SELECT`` statement is not enough: that one is.  So the expression is accepted only when

* DuckDB's tokenizer finds no comment and no ``;`` in it, and its parentheses close only what
  they opened (so ``(expr)`` ends with our own parenthesis in whatever query it is pasted into);
* DuckDB's parser (``json_serialize_sql``) reads ``SELECT 1 WHERE (expr)`` as exactly that
  statement: nothing after the condition (no set operation, ``ORDER BY``, ``GROUP BY``,
  ``QUALIFY``, ``LIMIT``, no second statement);
* every node of the condition is of a kind that computes a value from one row (columns,
  constants, operators, comparisons, ``CASE``, casts, scalar functions and their lambdas):
  no subquery, ``*``/``COLUMNS``, window, parameter, and none of the functions that read the
  configuration or change state (:data:`DENIED_FUNCTIONS`).

A condition can then only drop rows.  Unknown columns and wrong types are left to DuckDB's
binder (one line, as before).  Written here rather than with sqlglot (not a dependency): DuckDB
parses the text that DuckDB runs, so the check and the query cannot read it differently.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from evaladdon.errors import EvalAddonError

PREFIX = "SELECT 1 WHERE "
ALLOWED = frozenset({"BETWEEN", "CASE", "CAST", "COLLATE", "COLUMN_REF", "COMPARISON", "CONJUNCTION", "CONSTANT",
                     "FUNCTION", "LAMBDA", "LAMBDA_REF", "OPERATOR", "TYPE"})
"""The kinds of expression node (DuckDB's ``class``) a condition may hold."""
DENIED_FUNCTIONS = frozenset({"current_setting", "getenv", "nextval", "currval", "setseed"})
"""Scalar functions that read the configuration or the environment, or change state."""
NOT_ONE = "--where must be one boolean expression"


def _one_line(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return " ".join(text.split())


def _check_tokens(text: str) -> None:
    """No comment, no ``;``; parentheses that never close more than they opened, all closed."""
    import duckdb

    tokens = [(pos, kind.name) for pos, kind in duckdb.tokenize(text)]
    if any(kind == "comment" for _, kind in tokens):
        raise EvalAddonError(f"{NOT_ONE} (no comments)")
    operators = [text[pos] for pos, kind in tokens if kind == "operator"]
    if ";" in operators:
        raise EvalAddonError(f"{NOT_ONE} (no ';', no other statements)")
    depth = 0
    for op in operators:
        depth += (op == "(") - (op == ")")
        if depth < 0:
            break
    if depth != 0:
        raise EvalAddonError(f"{NOT_ONE} (its parentheses do not match)")


def _nodes(tree: Any) -> Iterator[dict[str, Any]]:
    """Every expression node (a dict with a ``class``) of a serialized parse tree."""
    stack = [tree]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            if "class" in x:
                yield x
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)


def _refusal(node: dict[str, Any]) -> str | None:
    kind = str(node.get("class"))
    if kind not in ALLOWED:
        return {"SUBQUERY": "no subqueries", "STAR": "no * or COLUMNS", "WINDOW": "no window functions",
                "PARAMETER": "no parameters"}.get(kind, f"no {kind.lower()} expressions")
    name = str(node.get("function_name", "")).lower() if kind == "FUNCTION" else ""
    if name in DENIED_FUNCTIONS:
        return f"no {name}()"
    return None


def _statement(con: Any, sql: str) -> dict[str, Any] | None:
    """The parse of ``sql`` when it is one statement (None when not, or unparsable)."""
    tree = json.loads(con.execute("SELECT json_serialize_sql(?)", [sql]).fetchall()[0][0])
    if tree.get("error") or len(tree.get("statements", [])) != 1:
        return None
    return dict(tree["statements"][0]["node"])


def _check_tree(con: Any, text: str) -> None:
    node = _statement(con, f"{PREFIX}({text})")
    reference = _statement(con, f"{PREFIX}(TRUE)")
    if node is None or reference is None or "where_clause" not in node:
        raise EvalAddonError(f"{NOT_ONE} (no ';', no other statements)")
    clause = node.pop("where_clause")
    reference.pop("where_clause", None)
    if node != reference:  # a set operation, ORDER BY, LIMIT, ... after the condition
        raise EvalAddonError(f"{NOT_ONE} (nothing after it: no UNION, ORDER BY, LIMIT, ...)")
    for part in _nodes(clause):
        reason = _refusal(part)
        if reason:
            raise EvalAddonError(f"{NOT_ONE} ({reason})")


def check_where(where: str, con: Any = None) -> str:
    """The expression (stripped), or a one-line error when it is not a single boolean
    expression over the rows (see the module's docstring).

    ``con``: a DuckDB connection to parse with (default: a new one that can read no file).
    """
    import duckdb

    text = where.strip()
    if not text:
        raise EvalAddonError("--where is empty")
    own = con is None
    if own:
        con = duckdb.connect(":memory:")
        con.execute("SET enable_external_access=false")
    try:
        _check_tokens(text)
        statements = con.extract_statements(f"{PREFIX}({text})")  # DuckDB's own syntax errors
        if len(statements) != 1 or statements[0].type != duckdb.StatementType.SELECT:
            raise EvalAddonError(f"{NOT_ONE} (no ';', no other statements)")
        _check_tree(con, text)
    except duckdb.Error as exc:
        raise EvalAddonError(f"--where: {_one_line(exc)}") from None
    finally:
        if own:
            con.close()
    return text
