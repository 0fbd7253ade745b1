"""Run a workload on a private PostgreSQL and capture its logical decoding.

The change log is what the built-in `test_decoding` output plugin writes for a slot made
before the workload (`pg_logical_slot_get_changes(..., 'include-xids', '1',
'include-timestamp', '1')`), parsed exactly (`parse_change`). Logical decoding carries no
DDL: the runner records each DDL it runs as an Event whose lsn is the WAL insert position
right after the DDL committed, which places it between the changes before and after it.
TRUNCATE is decoded (`table public.t: TRUNCATE: (no-flags)`); its `sql` is rebuilt from
the decoded line. Full column types come from the catalog (format_type), snapshotted
after every DDL; test_decoding's headers give the type without modifiers.

Before images follow the table's replica identity: DEFAULT gives none for an UPDATE that
keeps the key (before is None), the old key columns only for one that changes it, and
the key columns only for a DELETE; FULL gives whole rows. test_decoding leaves NULL
columns out of old images (and a row written before an ADD COLUMN has no value for it):
for FULL tables the capture puts them back as None, so a before image is the whole row.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import psycopg
from psycopg.types.string import TextLoader

from realdb.model import Capture, Column, Event, Row, RowChange, TableSchema, Value
from realdb.servers import PostgresServer
from realdb.workload import Workload, wait_for_new_second

UTC = dt.UTC
DATABASE = "shop"
SLOT = "realdb"
Schemas = dict[tuple[str, str], TableSchema]


def capture(server: PostgresServer, workload: Workload) -> Capture:
    """Run `workload` on `server` (in database `shop`) and return the decoded changes,
    the DDL in log order, and the final rows."""
    with server.connect() as admin:
        admin.execute(f"CREATE DATABASE {DATABASE}")
    server = dataclasses.replace(server, dbname=DATABASE)
    with server.connect() as conn:
        _text_json(conn)
        conn.execute(f"SELECT pg_create_logical_replication_slot('{SLOT}', 'test_decoding')")
        ddl = _run(conn, workload)
        schemas = _schemas(conn, workload.namespaces)
        final = {key: (schema, _final_rows(conn, schema)) for key, schema in schemas.items()}
        changes = conn.execute(
            "SELECT (lsn - '0/0')::bigint, xid::text::bigint, data FROM pg_logical_slot_get_changes("
            f"'{SLOT}', NULL, NULL, 'include-xids', '1', 'include-timestamp', '1')").fetchall()
    return Capture("postgres", server.version, _events(changes, ddl), final)


def _text_json(conn: psycopg.Connection[Any]) -> None:
    """json and jsonb as the server's text, not parsed into Python objects."""
    for name in ("json", "jsonb"):
        conn.adapters.register_loader(name, TextLoader)


# ---------------------------------------------------------------- workload and catalog


@dataclasses.dataclass
class _Ddl:
    event: Event
    schemas: Schemas  # every table right after the DDL
    full_identity: frozenset[tuple[str, str]]  # tables with REPLICA IDENTITY FULL


def _run(conn: psycopg.Connection[Any], workload: Workload) -> list[_Ddl]:
    """Run the statements; each DDL in a transaction of its own, recorded with its xid,
    the WAL insert position after its commit, and the schemas it leaves."""
    ddl = []
    for statement in workload.statements:
        if statement.new_second:
            wait_for_new_second()
        if statement.kind != "ddl":
            conn.execute(statement.sql)
            continue
        with conn.transaction():
            conn.execute(statement.sql)
            xid = conn.execute("SELECT pg_current_xact_id()::text::bigint").fetchone()[0]
        lsn, at = conn.execute("SELECT (pg_current_wal_insert_lsn() - '0/0')::bigint, clock_timestamp()").fetchone()
        schemas = _schemas(conn, workload.namespaces)
        namespace, table = _ddl_target(statement.sql)
        event = Event("ddl", DATABASE, table, "DDL", schemas.get((namespace, table)), sql=statement.sql,
                      xid=xid, lsn=lsn, **_times(at))
        ddl.append(_Ddl(event, schemas, _full_identity(conn, workload.namespaces)))
    return ddl


_DDL_TARGET = re.compile(r"^\s*(?:CREATE|ALTER|DROP)\s+(TABLE|SCHEMA)\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?"
                         r"(\w+)(?:\.(\w+))?", re.IGNORECASE)


def _ddl_target(sql: str) -> tuple[str, str]:
    """(schema, table) a DDL is about; table '' for CREATE SCHEMA."""
    match = _DDL_TARGET.match(sql)
    if not match:
        raise AssertionError(f"cannot tell which table {sql!r} is about")
    if match.group(1).upper() == "SCHEMA":
        return match.group(2), ""
    return (match.group(2), match.group(3)) if match.group(3) else ("public", match.group(2))


def _times(at: dt.datetime) -> dict[str, int]:
    micros = (at - dt.datetime(1970, 1, 1, tzinfo=UTC)) // dt.timedelta(microseconds=1)
    return {"ts": micros // 1_000_000, "ts_us": micros}


def _schemas(conn: psycopg.Connection[Any], namespaces: tuple[str, ...]) -> Schemas:
    columns: dict[tuple[str, str], list[Column]] = {}
    for ns, table, name, col_type, nullable in conn.execute(
            "SELECT n.nspname, c.relname, a.attname, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull"
            " FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
            " JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = ANY(%s) AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped"
            " ORDER BY n.nspname, c.relname, a.attnum", (list(namespaces),)):
        columns.setdefault((ns, table), []).append(Column(name, col_type, nullable))
    pks: dict[tuple[str, str], list[str]] = {}
    for ns, table, name in conn.execute(
            "SELECT n.nspname, c.relname, a.attname FROM pg_index i"
            " JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
            " CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)"
            " JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum"
            " WHERE i.indisprimary AND n.nspname = ANY(%s) ORDER BY 1, 2, k.ord", (list(namespaces),)):
        pks.setdefault((ns, table), []).append(name)
    return {key: TableSchema(DATABASE, key[1], tuple(cols), tuple(pks.get(key, ())), schema=key[0])
            for key, cols in columns.items()}


def _full_identity(conn: psycopg.Connection[Any], namespaces: tuple[str, ...]) -> frozenset[tuple[str, str]]:
    return frozenset(conn.execute(
        "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = ANY(%s) AND c.relkind = 'r' AND c.relreplident = 'f'", (list(namespaces),)))


def _final_rows(conn: psycopg.Connection[Any], schema: TableSchema) -> list[Row]:
    """SELECT * in key order (else by every column json can be ordered by)."""
    order = ", ".join(f'"{name}"' for name in schema.pk) or ", ".join(
        str(i + 1) for i, c in enumerate(schema.columns) if c.type != "json")
    rows = conn.execute(f'SELECT * FROM "{schema.schema}"."{schema.name}" ORDER BY {order}').fetchall()
    return [{c.name: _selected_value(v) for c, v in zip(schema.columns, row, strict=True)} for row in rows]


def _selected_value(value: Any) -> Value:
    """psycopg's value as the model's: time as timedelta, timestamptz in UTC."""
    if isinstance(value, dt.time):
        return dt.timedelta(hours=value.hour, minutes=value.minute, seconds=value.second,
                            microseconds=value.microsecond)
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(UTC)
    return value


# ---------------------------------------------------------------- the decoded changes


@dataclasses.dataclass
class Change:
    """One decoded change line: rows of an INSERT/UPDATE/DELETE (one row each), or a
    TRUNCATE (no rows)."""

    namespace: str
    table: str
    op: str
    rows: list[RowChange]
    lsn: int = 0
    xid: int = 0
    times: dict[str, int] = dataclasses.field(default_factory=dict)  # ts, ts_us of the commit


def _events(changes: list[tuple[int, int, str]], ddl: list[_Ddl]) -> list[Event]:
    """Decoded changes and recorded DDL merged in lsn order (a DDL before a change at its
    own lsn), each with the schema in force."""
    decoded = _decoded(changes)
    merged = sorted([(d.event.lsn, 0, i) for i, d in enumerate(ddl)] +
                    [(c.lsn, 1, i) for i, c in enumerate(decoded)])
    schemas: Schemas = {}
    full_identity: frozenset[tuple[str, str]] = frozenset()
    events = []
    for _, is_change, i in merged:
        if is_change:
            change = decoded[i]
            events.append(_event(change, schemas, (change.namespace, change.table) in full_identity))
        else:
            schemas, full_identity = ddl[i].schemas, ddl[i].full_identity
            events.append(ddl[i].event)
    for seq, event in enumerate(events):
        event.seq = seq
    return events


def _event(change: Change, schemas: Schemas, full_identity: bool) -> Event:
    schema = schemas[(change.namespace, change.table)]
    common = dict(schema=schema, lsn=change.lsn, xid=change.xid, **change.times)
    if change.op == "TRUNCATE":
        return Event("ddl", DATABASE, change.table, "TRUNCATE",
                     sql=f'TRUNCATE TABLE "{change.namespace}"."{change.table}"', **common)
    order = [c.name for c in schema.columns]
    rows = [RowChange(_ordered(r.before, order, full_identity), _ordered(r.after, order)) for r in change.rows]
    return Event("rows", DATABASE, change.table, change.op, rows=rows, **common)  # type: ignore[arg-type]


def _ordered(row: Row | None, order: list[str], whole: bool = True) -> Row | None:
    """The row's columns in the catalog's order; an absent column is NULL in a whole row
    (a new tuple, an old one under REPLICA IDENTITY FULL), left out of a key-only one."""
    if row is None:
        return None
    unknown = set(row) - set(order)
    if unknown:
        raise AssertionError(f"decoded columns {unknown} are not in the catalog's {order}")
    return {name: row.get(name) for name in order if whole or name in row}


def _decoded(changes: list[tuple[int, int, str]]) -> list[Change]:
    """The change lines, each with its lsn, xid and its transaction's commit time."""
    decoded: list[Change] = []
    open_tx: list[Change] = []
    for lsn, xid, data in changes:
        if data.startswith("BEGIN"):
            continue
        if data.startswith("COMMIT"):
            at = re.search(r"\(at (.+)\)$", data)
            if not at:
                raise ValueError(f"no commit time in {data!r}")
            for change in open_tx:
                change.times = _times(dt.datetime.fromisoformat(at.group(1)))
            open_tx.clear()
            continue
        change = parse_change(data)
        change.lsn, change.xid = lsn, xid
        open_tx.append(change)
        decoded.append(change)
    return decoded


# ---------------------------------------------------------------- test_decoding text


class _Reader:
    """A cursor over one test_decoding line."""

    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

    def at(self, literal: str) -> bool:
        return self.text.startswith(literal, self.pos)

    def accept(self, literal: str) -> bool:
        if self.at(literal):
            self.pos += len(literal)
            return True
        return False

    def expect(self, literal: str) -> None:
        if not self.accept(literal):
            raise ValueError(f"expected {literal!r} at {self.pos} of {self.text!r}")

    def until(self, stop: str) -> str:
        end = self.text.index(stop, self.pos)
        token, self.pos = self.text[self.pos:end], end
        return token

    def quoted(self, quote: str) -> str:
        """The rest of a quoted text whose opening `quote` is read; a doubled quote
        stands for one."""
        parts = []
        while True:
            parts.append(self.until(quote))
            self.pos += 1
            if not self.accept(quote):
                return "".join(parts)
            parts.append(quote)

    def name(self) -> str:
        """A name as quote_identifier writes it: bare, or in double quotes."""
        if self.accept('"'):
            return self.quoted('"')
        token = re.match(r"[^\s.:\[]+", self.text[self.pos:])
        if not token:
            raise ValueError(f"no name at {self.pos} of {self.text!r}")
        self.pos += len(token.group(0))
        return token.group(0)

    def literal(self) -> str | None:
        """A value as print_literal writes it: in single quotes, or a bare token
        (numbers, true/false, B'bits'); None for null."""
        if self.accept("'"):
            return self.quoted("'")
        end = self.text.find(" ", self.pos)
        token = self.text[self.pos:] if end < 0 else self.text[self.pos:end]
        self.pos += len(token)
        if token == "unchanged-toast-datum":
            raise ValueError("an unchanged TOASTed value: the model has no way to say 'not logged'")
        return None if token == "null" else token


def parse_change(line: str) -> Change:
    """One test_decoding change line: `table ns.t: OP: ...` with typed columns
    (`name[type]:value`), UPDATE's `old-key:`/`new-tuple:` sections, or TRUNCATE."""
    r = _Reader(line)
    r.expect("table ")
    namespace = r.name()
    r.expect(".")
    table = r.name()
    r.expect(": ")
    op = r.until(":")
    r.expect(": ")
    if op == "TRUNCATE":
        return Change(namespace, table, op, [])
    if op == "INSERT":
        rows = [RowChange(None, _tuple(r))]
    elif op == "DELETE":
        rows = [RowChange(None if r.accept("(no-tuple data)") else _tuple(r), None)]
    elif op == "UPDATE":
        before = None
        if r.accept("old-key: "):
            before = _tuple(r, stop="new-tuple: ")
            r.expect("new-tuple: ")
        rows = [RowChange(before, _tuple(r))]
    else:
        raise ValueError(f"unknown change {op!r} in {line!r}")
    return Change(namespace, table, op, rows)


def _tuple(r: _Reader, stop: str | None = None) -> Row:
    """`name[type]:value` pairs separated by spaces, to the end or to `stop`."""
    row: Row = {}
    while r.pos < len(r.text) and not (stop and r.at(stop)):
        name = r.name()
        r.expect("[")
        type_name = r.until("]:")
        r.expect("]:")
        row[name] = decode_value(type_name, r.literal())
        r.accept(" ")
    return row


def _time(text: str) -> dt.timedelta:
    hours, minutes, seconds = text.split(":")
    whole, _, fraction = seconds.partition(".")
    return dt.timedelta(hours=int(hours), minutes=int(minutes), seconds=int(whole),
                        microseconds=int(fraction.ljust(6, "0")) if fraction else 0)


_DECODERS: dict[str, Callable[[str], Value]] = {
    "smallint": int, "integer": int, "bigint": int, "oid": int,
    "numeric": Decimal, "real": float, "double precision": float,
    "boolean": lambda text: {"true": True, "false": False}[text],
    "text": str, "character varying": str, "character": str, "name": str, "uuid": str,
    "json": str, "jsonb": str,
    "bytea": lambda text: bytes.fromhex(text[2:]),  # bytea_output = hex: \x0102
    "date": dt.date.fromisoformat,
    "timestamp without time zone": dt.datetime.fromisoformat,
    "timestamp with time zone": lambda text: dt.datetime.fromisoformat(text).astimezone(UTC),
    "time without time zone": _time,
}


def decode_value(type_name: str, text: str | None) -> Value:
    """The Python value of a column's output text, by test_decoding's type header."""
    if text is None:
        return None
    try:
        decoder = _DECODERS[type_name]
    except KeyError:
        raise ValueError(f"no decoder for PostgreSQL type {type_name!r}") from None
    return decoder(text)
