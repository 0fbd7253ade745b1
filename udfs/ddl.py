"""DDL text -> parsed JSON, with sqlglot (UDF `cdc_parse_ddl(text, dialect)`).

The result is a JSON object:
`{"action", "object_kind", "table": {"db", "name"}, "columns": [{"name", "type", "change"}],
"renamed_to", "error"}`
where `action` is CREATE, ALTER, DROP, RENAME, TRUNCATE or UNKNOWN. Text that
sqlglot cannot read is kept: action UNKNOWN and `error` says why.
"""

from __future__ import annotations

import json
import logging
import re
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_RENAME_TABLE = re.compile(
    r"^\s*rename\s+table\s+(?P<src>[`\"\w.$]+)\s+to\s+(?P<dst>[`\"\w.$]+)", re.IGNORECASE
)
_DIALECTS = {"mysql", "postgres", "oracle", "tsql", "spark"}


def _table(node: Any) -> dict[str, str | None]:
    from sqlglot import exp

    table = node if isinstance(node, exp.Table) else node.find(exp.Table)
    if table is None:
        return {"db": None, "name": None}
    return {"db": table.db or None, "name": table.name or None}


def _column(defn: Any, change: str) -> dict[str, str | None]:
    from sqlglot import exp

    if isinstance(defn, exp.ColumnDef):
        kind = defn.args.get("kind")
        return {"name": defn.name, "type": kind.sql() if kind else None, "change": change}
    return {"name": defn.name, "type": None, "change": change}


def _columns(stmt: Any) -> list[dict[str, str | None]]:
    from sqlglot import exp

    if isinstance(stmt, exp.Create):
        schema = stmt.this if isinstance(stmt.this, exp.Schema) else None
        return [_column(c, "ADD") for c in (schema.expressions if schema else []) if isinstance(c, exp.ColumnDef)]
    cols: list[dict[str, str | None]] = []
    for action in stmt.args.get("actions") or []:
        if isinstance(action, exp.ColumnDef):
            cols.append(_column(action, "ADD"))
        elif isinstance(action, exp.Drop):
            cols.extend(_column(c, "DROP") for c in (action.args.get("tables") or action.expressions))
        elif type(action).__name__ in {"ModifyColumn", "AlterColumn"}:
            cols.append(_column(action.this, "MODIFY"))
        elif isinstance(action, exp.RenameColumn):
            cols.append({"name": action.this.name, "type": None, "change": f"RENAME TO {action.args['to'].name}"})
    return cols


# MongoDB commands (DRS JSON for DDS sends DDL as a command document) -> action, object kind
_MONGO_COMMANDS = {
    "create": ("CREATE", "COLLECTION"), "drop": ("DROP", "COLLECTION"),
    "renameCollection": ("RENAME", "COLLECTION"), "collMod": ("ALTER", "COLLECTION"),
    "createIndexes": ("CREATE", "INDEX"), "dropIndexes": ("DROP", "INDEX"),
    "dropDatabase": ("DROP", "DATABASE"),
}


def _parse_mongo_command(text: str) -> dict[str, Any]:
    """A MongoDB command document (JSON or shell syntax): its first key names the command."""
    from udfs.mongo_shell import MongoSyntaxError, parse

    result: dict[str, Any] = {"action": "UNKNOWN", "object_kind": None, "table": {"db": None, "name": None},
                              "columns": [], "renamed_to": None, "error": None}
    try:
        command = parse(text)
    except MongoSyntaxError as exc:
        result["error"] = f"not a MongoDB command document: {exc}"
        return result
    if not isinstance(command, dict) or not command:
        result["error"] = "not a MongoDB command document"
        return result
    name, target = next(iter(command.items()))
    if name not in _MONGO_COMMANDS:
        result["error"] = f"MongoDB command {name!r} is not a known DDL command"
        return result
    result["action"], result["object_kind"] = _MONGO_COMMANDS[name]
    if isinstance(target, str) and name != "dropDatabase":
        db, _, coll = target.rpartition(".") if name == "renameCollection" else ("", "", target)
        result["table"] = {"db": db or None, "name": coll}
    if name == "renameCollection" and isinstance(command.get("to"), str):
        result["renamed_to"] = command["to"]
    return result


def parse_ddl(text: str | None, dialect: str | None = "mysql") -> str | None:
    """Parse one DDL statement; never raises."""
    if text is None:
        return None
    if dialect == "mongodb":
        return json.dumps(_parse_mongo_command(text))
    read = dialect if dialect in _DIALECTS else "mysql"
    renamed = _RENAME_TABLE.match(text)
    if renamed:
        src, dst = (renamed.group(g).replace("`", "").replace('"', "") for g in ("src", "dst"))
        db, _, name = src.rpartition(".")
        return json.dumps({"action": "RENAME", "object_kind": "TABLE",
                           "table": {"db": db or None, "name": name}, "columns": [],
                           "renamed_to": dst, "error": None})
    result: dict[str, Any] = {"action": "UNKNOWN", "object_kind": None,
                              "table": {"db": None, "name": None}, "columns": [], "renamed_to": None,
                              "error": None}
    try:
        import sqlglot
        from sqlglot import exp

        logging.getLogger("sqlglot").setLevel(logging.ERROR)
        stmt = sqlglot.parse_one(text, read=read)
        kinds = {exp.Create: "CREATE", exp.Alter: "ALTER", exp.Drop: "DROP", exp.TruncateTable: "TRUNCATE"}
        action = next((name for cls, name in kinds.items() if isinstance(stmt, cls)), None)
        if action is None:
            result["error"] = f"not a recognised DDL statement ({type(stmt).__name__})"
        else:
            result["action"] = action
            result["object_kind"] = "TABLE" if action == "TRUNCATE" else (stmt.args.get("kind") or None)
            result["table"] = _table(stmt.expressions[0] if action == "TRUNCATE" else stmt)
            result["columns"] = _columns(stmt) if action in {"CREATE", "ALTER"} else []
    except Exception as exc:  # sqlglot raises several error types; all mean "cannot read"
        result["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"
    return json.dumps(result)


def _parse_ddl_series(texts: pd.Series, dialects: pd.Series) -> pd.Series:
    return pd.Series([parse_ddl(t, d) for t, d in zip(texts, dialects)], dtype=object)


def register(spark: "SparkSession") -> None:
    from pyspark.sql.functions import pandas_udf

    spark.udf.register("cdc_parse_ddl", pandas_udf(_parse_ddl_series, "string"))
