"""DDL text -> parsed JSON, with sqlglot (UDF `cdc_parse_ddl(text, dialect)`).

The result is a JSON object:
`{"action", "object_kind", "dialect", "statements", "table": {"db", "name"}, "renamed_to",
"columns": [{"name", "type", "change", "new_name", "position"}], "error"}`

- `action`: CREATE, ALTER, DROP, RENAME, TRUNCATE or UNKNOWN; `object_kind`: TABLE, INDEX,
  VIEW, DATABASE, ... as sqlglot names it.
- `dialect`: the sqlglot dialect the text was read with. MySQL (`mysql`, default), PostgreSQL
  (`postgres`; `postgresql`, `gaussdb`, `opengauss` read as postgres), Oracle (`oracle`), SQL
  Server (`tsql`; `sqlserver`, `mssql`), Spark (`spark`).
- `statements`: how many statements the text holds; the parse is of the first. A MySQL
  `RENAME TABLE a TO b, c TO d` or a `DROP`/`TRUNCATE` naming several tables acts as that
  many statements and is counted so.
- `table`: the table the statement is about (for CREATE/DROP INDEX, the indexed table when
  named; for DATABASE/SCHEMA, `db` only). Identifiers unquoted, case as written.
- `renamed_to`: new name of a renamed table, `db.name` or `name` as written.
- `columns`: ADD (every column of a CREATE TABLE, `position` 1-based; an ALTER ... FIRST has
  position 1), DROP, MODIFY (type change; MySQL CHANGE gives `new_name` when the name
  changes), RENAME (`new_name`). `type` is the column type written back by sqlglot in the
  source dialect, parameters kept (`DECIMAL(20, 4)`, `INT(11) UNSIGNED`, `VARCHAR2(50 BYTE)`).
  Changes that are not about a column's existence, name or type (defaults, nullability,
  constraints, indexes, table options) give no entry.
- `error`: NULL when read; otherwise why. Text that cannot be read is kept: action UNKNOWN.
  An ALTER whose table was read but one of whose clauses was not keeps action ALTER, the
  clauses it could read, and names the others in `error`.

Where sqlglot reads a form as an opaque Command, this module reads it itself: MySQL
`RENAME TABLE`, MySQL `ADD COLUMN (a int, b int)`, Oracle `MODIFY (c type, ...)`,
`MODIFY c type`, `DROP (c, d)`, SQL Server `sp_rename`. Oracle LONG / LONG RAW (which
sqlglot reads as an integer) are read as CLOB / BLOB, the types Oracle replaces them with.
MySQL FLOAT/DOUBLE/REAL UNSIGNED (deprecated by MySQL, rejected by sqlglot) lose UNSIGNED.
"""

from __future__ import annotations

import json
import logging
import re
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from udfs import arrow

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from sqlglot import exp
    from sqlglot.tokens import Token

# dialect names sent by the decoders (or a DataWorks dbType) -> sqlglot dialect
DIALECTS = {
    "mysql": "mysql", "mariadb": "mysql",
    "postgres": "postgres", "postgresql": "postgres", "gaussdb": "postgres", "opengauss": "postgres",
    "oracle": "oracle",
    "tsql": "tsql", "sqlserver": "tsql", "mssql": "tsql",
    "spark": "spark",
}
# first word of a clause of ALTER TABLE
_CLAUSE_WORDS = {"ADD", "MODIFY", "DROP", "CHANGE", "ALTER", "RENAME"}
_FLOAT_UNSIGNED = re.compile(
    r"\b(float|real)(\s*\(\s*\d+\s*(?:,\s*\d+\s*)?\))?\s+unsigned\b", re.IGNORECASE
)

Result = dict[str, Any]
Column = dict[str, Any]


def read_dialect(dialect: str | None) -> str:
    """The sqlglot dialect for a dialect name (MySQL when unknown or missing)."""
    return DIALECTS.get((dialect or "").strip().lower(), "mysql")


def _empty(read: str | None) -> Result:
    return {"action": "UNKNOWN", "object_kind": None, "dialect": read, "statements": 0,
            "table": {"db": None, "name": None}, "renamed_to": None, "columns": [], "error": None}


def _col(name: str, change: str, type_: str | None = None, new_name: str | None = None,
         position: int | None = None) -> Column:
    return {"name": name, "type": type_, "change": change, "new_name": new_name, "position": position}


def _type(defn: exp.ColumnDef, read: str) -> str | None:
    kind = defn.args.get("kind")
    return kind.sql(dialect=read) if kind is not None else None


def _table_ref(table: exp.Table) -> dict[str, str | None]:
    return {"db": table.db or None, "name": table.name or None}


def _qualified(table: exp.Table) -> str:
    return ".".join(p for p in (table.catalog, table.db, table.name) if p)


# --- statements split -------------------------------------------------------------------

def _statements(text: str, read: str) -> list[str]:
    """The statements of the text (comments and semicolons dropped), by sqlglot's tokenizer."""
    from sqlglot.dialects.dialect import Dialect
    from sqlglot.tokens import TokenType

    chunks: list[list[Token]] = [[]]
    for token in Dialect.get_or_raise(read).tokenize(text):
        if token.token_type == TokenType.SEMICOLON:
            chunks.append([])
        else:
            chunks[-1].append(token)
    return [text[c[0].start:c[-1].end + 1] for c in chunks if c]


def _tokens(sql: str, read: str) -> list[Token]:
    from sqlglot.dialects.dialect import Dialect

    return Dialect.get_or_raise(read).tokenize(sql)


def _oracle_long(sql: str) -> str:
    """Oracle LONG -> CLOB and LONG RAW -> BLOB (sqlglot reads LONG as an integer)."""
    from sqlglot.tokens import TokenType

    tokens = _tokens(sql, "oracle")
    out, last = [], 0
    for i, tok in enumerate(tokens):
        if tok.token_type == TokenType.BIGINT and tok.text.upper() == "LONG":
            raw = i + 1 < len(tokens) and tokens[i + 1].text.upper() == "RAW"
            out.append(sql[last:tok.start] + ("BLOB" if raw else "CLOB"))
            last = (tokens[i + 1] if raw else tok).end + 1
    return "".join(out) + sql[last:]


def _parse_one(sql: str, read: str) -> exp.Expr:
    import sqlglot
    from sqlglot.errors import ParseError

    if read == "oracle":
        sql = _oracle_long(sql)
    try:
        return sqlglot.parse_one(sql, read=read)
    except ParseError as exc:
        if read == "mysql" and "to unsigned" in str(exc) and _FLOAT_UNSIGNED.search(sql):
            return sqlglot.parse_one(_FLOAT_UNSIGNED.sub(r"\1\2", sql), read=read)
        raise


# --- CREATE / DROP / TRUNCATE ----------------------------------------------------------

def _create(result: Result, stmt: exp.Create, read: str) -> None:
    from sqlglot import exp

    kind = (stmt.args.get("kind") or "").upper() or None
    result["action"], result["object_kind"] = "CREATE", kind
    target = stmt.this
    table = target.this if isinstance(target, exp.Schema) else target
    if isinstance(table, exp.Index):
        table = table.args.get("table")
    if isinstance(table, exp.Table):
        result["table"] = ({"db": table.name or table.db or None, "name": None} if kind in {"DATABASE", "SCHEMA"}
                           else _table_ref(table))
    if isinstance(target, exp.Schema):
        defs = [c for c in target.expressions if isinstance(c, exp.ColumnDef)]
        result["columns"] = [_col(c.name, "ADD", _type(c, read), position=i) for i, c in enumerate(defs, 1)]


def _drop(result: Result, stmt: exp.Drop) -> None:
    from sqlglot import exp

    kind = (stmt.args.get("kind") or "").upper() or None
    result["action"], result["object_kind"] = "DROP", kind
    tables = [t for t in stmt.args.get("tables") or [] if isinstance(t, exp.Table)]
    on = stmt.args.get("cluster")
    if kind == "INDEX" and isinstance(on, exp.OnProperty) and isinstance(on.this, exp.Table):
        result["table"] = _table_ref(on.this)
    elif tables and kind in {"DATABASE", "SCHEMA"}:
        result["table"] = {"db": tables[0].name or tables[0].db or None, "name": None}
    elif tables:
        result["table"] = _table_ref(tables[0])
    result["statements"] += max(len(tables) - 1, 0)


def _truncate(result: Result, stmt: exp.TruncateTable) -> None:
    from sqlglot import exp

    tables = [t for t in stmt.expressions if isinstance(t, exp.Table)]
    result["action"], result["object_kind"] = "TRUNCATE", "TABLE"
    if tables:
        result["table"] = _table_ref(tables[0])
    result["statements"] += max(len(tables) - 1, 0)


# --- RENAME TABLE (MySQL), sp_rename (SQL Server) ----------------------------------------

def _rename_table(result: Result, sql: str, read: str) -> None:
    """MySQL `RENAME TABLE a TO b[, c TO d ...]`: the first pair; each pair counts as a statement."""
    from sqlglot import exp
    from sqlglot.tokens import TokenType

    # the tokenizer reads RENAME as a command and the rest as one string: tokenize the rest
    sql = re.sub(r"^\s*rename\s+table\s+", "", sql, count=1, flags=re.IGNORECASE)
    tokens = _tokens(sql, read)
    pairs: list[list[Token]] = [[]]
    for tok in tokens:
        if tok.token_type == TokenType.COMMA:
            pairs.append([])
        else:
            pairs[-1].append(tok)
    first = pairs[0]
    to = next((i for i, t in enumerate(first) if t.text.upper() == "TO"), None)
    if to is None or to == 0 or to == len(first) - 1:
        raise ValueError("RENAME TABLE without `old TO new`")
    src = exp.to_table(sql[first[0].start:first[to - 1].end + 1], dialect=read)
    dst = exp.to_table(sql[first[to + 1].start:first[-1].end + 1], dialect=read)
    result.update(action="RENAME", object_kind="TABLE", table=_table_ref(src), renamed_to=_qualified(dst))
    result["statements"] += len(pairs) - 1


def _string(node: exp.Expression) -> str | None:
    from sqlglot import exp

    if isinstance(node, exp.EQ):
        node = node.expression
    if isinstance(node, exp.National) or (isinstance(node, exp.Literal) and node.is_string):
        return str(node.this)
    return None


def _sp_rename(result: Result, stmt: exp.Execute) -> None:
    """SQL Server `EXEC sp_rename 'schema.table[.column]', 'new name'[, 'COLUMN']`."""
    import sqlglot
    from sqlglot import exp

    named: dict[str, str | None] = {}
    positional: list[str | None] = []
    for arg in stmt.expressions:
        if isinstance(arg, exp.EQ) and isinstance(arg.this, exp.Parameter):
            named[arg.this.name.lower()] = _string(arg)
        else:
            positional.append(_string(arg))
    objname = named.get("objname") or (positional[0] if positional else None)
    newname = named.get("newname") or (positional[1] if len(positional) > 1 else None)
    objtype = (named.get("objtype") or (positional[2] if len(positional) > 2 else None) or "OBJECT").upper()
    if not objname or not newname:
        raise ValueError("sp_rename without object name and new name")
    node = sqlglot.parse_one(objname, read="tsql")
    names = [p.name for p in node.parts] if isinstance(node, exp.Column) else []
    if not names:
        raise ValueError(f"sp_rename object name not read: {objname!r}")
    if objtype == "COLUMN" and len(names) >= 2:
        result.update(action="ALTER", object_kind="TABLE",
                      table={"db": names[-3] if len(names) >= 3 else None, "name": names[-2]},
                      columns=[_col(names[-1], "RENAME", new_name=newname)])
    elif objtype == "OBJECT":
        result.update(action="RENAME", object_kind="TABLE",
                      table={"db": names[-2] if len(names) >= 2 else None, "name": names[-1]},
                      renamed_to=newname)
    else:
        raise ValueError(f"sp_rename of {objtype} {objname!r} is not read")


# --- ALTER ------------------------------------------------------------------------------

def _paren_defs(clause: str, read: str) -> list[exp.ColumnDef] | None:
    """`ADD|MODIFY [COLUMN] (c type, ...)` or `MODIFY c type`: the columns, read as CREATE TABLE's."""
    from sqlglot import exp

    body = re.sub(r"^\s*\w+\s+(column\s+)?", "", clause, count=1, flags=re.IGNORECASE).strip()
    if body.startswith("(") and body.endswith(")"):
        body = body[1:-1]
    try:
        create = _parse_one(f"CREATE TABLE _cdc_ ({body})", read)
    except Exception:
        return None
    schema = create.this if isinstance(create, exp.Create) else None
    if not isinstance(schema, exp.Schema):
        return None
    defs = [c for c in schema.expressions if isinstance(c, exp.ColumnDef)]
    return defs or None


def _drop_list(body: str, read: str) -> list[Column] | None:
    """Oracle `DROP (c, d)`: the column names."""
    from sqlglot import exp

    body = body.strip()
    if not (body.startswith("(") and body.endswith(")")):
        return None
    try:
        select = _parse_one(f"SELECT {body[1:-1]}", read)
    except Exception:
        return None
    names = [e for e in select.expressions if isinstance(e, exp.Column)]
    return [_col(c.name, "DROP") for c in names] if len(names) == len(select.expressions) else None


def _action_columns(action: exp.Expression, read: str) -> list[Column] | None:
    """Column entries of one ALTER action; None when sqlglot kept it unread (a Command)."""
    from sqlglot import exp

    if isinstance(action, exp.ColumnDef):
        pos = action.args.get("position")
        first = isinstance(pos, exp.ColumnPosition) and str(pos.args.get("position") or "").upper() == "FIRST"
        return [_col(action.name, "ADD", _type(action, read), position=1 if first else None)]
    if isinstance(action, exp.Schema):
        return [_col(c.name, "ADD", _type(c, read)) for c in action.expressions if isinstance(c, exp.ColumnDef)]
    if isinstance(action, exp.Drop):
        if (action.args.get("kind") or "COLUMN").upper() != "COLUMN":
            return []
        return [_col(c.name, "DROP") for c in action.args.get("tables") or [] if isinstance(c, exp.Column)]
    if isinstance(action, exp.ModifyColumn):
        defn = action.this
        old = action.args.get("rename_from")
        new_name = defn.name if old is not None and old.name != defn.name else None
        return [_col(old.name if old is not None else defn.name, "MODIFY", _type(defn, read), new_name)]
    if isinstance(action, exp.AlterColumn):
        dtype = action.args.get("dtype")
        return [_col(action.this.name, "MODIFY", dtype.sql(dialect=read))] if dtype is not None else []
    if isinstance(action, exp.RenameColumn):
        return [_col(action.this.name, "RENAME", new_name=action.args["to"].name)]
    if isinstance(action, exp.Command):
        body = action.expression.this if isinstance(action.expression, exp.Literal) else action.expression
        if str(action.this).upper() == "DROP":
            return _drop_list(str(body or ""), read)
        return None
    return []  # constraints, indexes, table options, renames: no column entry


def _alter(result: Result, table: exp.Expression | None, kind: str | None,
           actions: list[exp.Expression], read: str) -> None:
    from sqlglot import exp

    result["object_kind"] = (kind or "").upper() or None
    if isinstance(table, exp.Table):
        result["table"] = _table_ref(table)
    renames = [a for a in actions if isinstance(a, exp.AlterRename)]
    if renames and isinstance(renames[0].this, exp.Table):
        result["renamed_to"] = _qualified(renames[0].this)
    result["action"] = "RENAME" if renames and len(renames) == len(actions) else "ALTER"
    unread: list[str] = []
    for action in actions:
        cols = _action_columns(action, read)
        if cols is None:
            text = action.expression.this if isinstance(action, exp.Command) else None
            unread.append(str(text) if isinstance(text, str) else action.sql(dialect=read))
        else:
            result["columns"].extend(cols)
    if unread:
        result["error"] = "clauses not read: " + "; ".join(u[:200] for u in unread)


# a clause of ALTER TABLE that changes no column: constraints, indexes, and the table
# options of the dialects (a clause that is neither is reported as not read)
_NOT_COLUMN = re.compile(
    r"^(add|drop)\s+(constraint|index|key|primary|unique|foreign|check|partition|fulltext|spatial)\b"
    r"|^(engine|auto_increment|avg_row_length|checksum|comment|compression|connection|convert|"
    r"character|charset|collate|default|data|delay_key_write|encryption|force|index|insert_method|"
    r"key_block_size|lock|algorithm|max_rows|min_rows|order|pack_keys|password|row_format|stats_\w+|"
    r"tablespace|union|discard|import|coalesce|reorganize|exchange|analyze|optimize|rebuild|repair|"
    r"truncate|remove|upgrade|with|without|validation|secondary_\w+|enable|disable|set|reset|owner|"
    r"inherit|no|cluster|replica|attach|detach|of|not|logging|nologging|parallel|noparallel|move|"
    r"pctfree|pctused|initrans|storage|cache|nocache|monitoring|nomonitoring|shrink|deallocate|"
    r"allocate|row|read|flashback|switch|split|merge|check|nocheck|trigger|change_tracking|"
    r"filestream_on|system_versioning)\b",
    re.IGNORECASE,
)


def _alter_fallback(result: Result, sql: str, read: str) -> None:
    """An ALTER TABLE sqlglot could not read as a whole: split it into clauses, read each alone."""
    from sqlglot import exp
    from sqlglot.tokens import TokenType

    tokens = _tokens(sql, read)
    if len(tokens) < 4 or tokens[1].token_type != TokenType.TABLE:
        raise ValueError("not an ALTER TABLE that could be read")
    i = 2
    while i < len(tokens) and tokens[i].text.upper() in {"IF", "EXISTS", "ONLY", "ONLINE"}:
        i += 1
    name_start = i
    i += 1
    while i + 1 < len(tokens) and tokens[i].token_type == TokenType.DOT:
        i += 2
    if i >= len(tokens):
        raise ValueError("ALTER TABLE without a clause")
    table_sql = sql[tokens[name_start].start:tokens[i - 1].end + 1]
    clauses: list[tuple[int, int]] = []
    depth, start = 0, i
    for j in range(i, len(tokens)):
        tok = tokens[j]
        depth += (tok.token_type == TokenType.L_PAREN) - (tok.token_type == TokenType.R_PAREN)
        if depth:
            continue
        if tok.token_type == TokenType.COMMA:
            clauses.append((start, j - 1))
            start = j + 1
        elif (tok.text.upper() in _CLAUSE_WORDS and j > start
              and tokens[j - 1].token_type == TokenType.R_PAREN):
            clauses.append((start, j - 1))  # Oracle: ADD (...) MODIFY (...)
            start = j
    clauses.append((start, len(tokens) - 1))
    actions: list[exp.Expression] = []
    for first, last in clauses:
        if first > last:
            continue
        clause = sql[tokens[first].start:tokens[last].end + 1]
        actions.extend(_clause_actions(clause, table_sql, read))
    _alter(result, exp.to_table(table_sql, dialect=read), "TABLE", actions, read)


def _clause_actions(clause: str, table_sql: str, read: str) -> list[exp.Expression]:
    """One ALTER TABLE clause as sqlglot actions; an unread one as a Command holding its text."""
    from sqlglot import exp

    if _NOT_COLUMN.match(clause):
        return []
    word = clause.split(None, 1)[0].upper()
    # MySQL RENAME AS new_name
    retry = re.sub(r"^rename\s+as\b", "RENAME TO", clause, flags=re.IGNORECASE)
    try:
        alter = _parse_one(f"ALTER TABLE {table_sql} {retry}", read)
    except Exception:
        alter = None
    if isinstance(alter, exp.Alter):
        actions = alter.args.get("actions") or []
        if all(_action_columns(a, read) is not None for a in actions):
            return list(actions)
    if word in {"ADD", "MODIFY"}:
        defs = _paren_defs(clause, read)
        if defs:
            return [exp.Schema(expressions=defs)] if word == "ADD" else [exp.ModifyColumn(this=d) for d in defs]
    if word == "DROP":
        body = re.sub(r"^\s*drop\s+(column\s+)?", "", clause, count=1, flags=re.IGNORECASE)
        if _drop_list(body, read) is not None:
            return [exp.Command(this="DROP", expression=exp.Literal.string(body))]
    return [exp.Command(this=word, expression=exp.Literal.string(clause))]


# --- entry points -----------------------------------------------------------------------

def _parse_sql(result: Result, text: str, read: str) -> None:
    from sqlglot import exp
    from sqlglot.errors import ParseError

    statements = _statements(text, read)
    result["statements"] = len(statements)
    if not statements:
        result["error"] = "no statement (empty text or only comments)"
        return
    sql = statements[0]
    words = [w.upper() for w in sql.split(None, 2)]
    if words[:2] == ["RENAME", "TABLE"]:
        _rename_table(result, sql, read)
        return
    try:
        stmt = _parse_one(sql, read)
    except ParseError:
        if words[:2] != ["ALTER", "TABLE"]:
            raise
        try:
            _alter_fallback(result, sql, read)
        except Exception:
            pass
        else:
            return
        raise
    if isinstance(stmt, exp.Create):
        _create(result, stmt, read)
    elif isinstance(stmt, exp.Alter):
        _alter(result, stmt.this, stmt.args.get("kind"), stmt.args.get("actions") or [], read)
    elif isinstance(stmt, exp.Drop):
        _drop(result, stmt)
    elif isinstance(stmt, exp.TruncateTable):
        _truncate(result, stmt)
    elif isinstance(stmt, exp.Execute) and stmt.this is not None and stmt.this.name.lower() == "sp_rename":
        _sp_rename(result, stmt)
    elif isinstance(stmt, exp.Command) and words[:2] == ["ALTER", "TABLE"]:
        _alter_fallback(result, sql, read)
    elif isinstance(stmt, exp.Command):
        result["error"] = f"sqlglot ({read}) does not read this {str(stmt.this).upper()} statement"
    else:
        result["error"] = f"not a recognised DDL statement ({type(stmt).__name__})"


def parse_ddl(text: str | None, dialect: str | None = "mysql") -> str | None:
    """Parse DDL text (its first statement) into the JSON described above; never raises."""
    if text is None:
        return None
    if dialect == "mongodb":
        return json.dumps(_parse_mongo_command(text))
    read = read_dialect(dialect)
    result = _empty(read)
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    try:
        _parse_sql(result, text, read)
    except Exception as exc:  # sqlglot raises several error types; all mean "cannot read"
        statements = result["statements"]
        result = _empty(read)
        result["statements"] = statements
        result["error"] = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:300]}"
    return json.dumps(result)


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


parse_ddl_arrays = arrow.row_wise(parse_ddl, pa.string())


def register(spark: SparkSession) -> None:
    parse_ddl_arrays.register(spark, "cdc_parse_ddl")
