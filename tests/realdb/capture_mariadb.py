"""Run a workload on a private MariaDB and capture the binary log it wrote.

The binlog is read with pymysqlreplication (the replication protocol, as Canal, DTS, DRS
and Debezium read it). Column names come from the binlog's FULL row metadata; the full
column types from information_schema, snapshotted before the workload and after every
DDL, so each event carries the schema in force when it was written.

pymysqlreplication 1.0.17 does not return what the database holds for some types; the
capture corrects them (`_value`, `_read_time2`):
- TIME(1..6) negative with a fraction is decoded wrongly ('-00:00:00.9' comes back as
  -0.1 s, '-12:30:15.250' as -12:30:14.750): it takes the two's complement of the
  integer part alone. Replaced by a decoder of the whole packed value.
- FLOAT is widened to a double (3.14 -> 3.140000104904175): we keep the shortest decimal
  that reads back as the same float32 (3.14), which is what the user wrote.
- YEAR 0000 comes back as 1900.
- SET is a Python set, and the empty set '' comes back as None (as if NULL): we keep the
  labels in definition order, comma-joined ('red,blue'), and '' for the empty set.
- BIT(n) is a text of '0'/'1' digits: we keep the integer.
- BINARY(n) loses its trailing zero bytes (the binlog stores it stripped): padded back.
- An empty BLOB/VARBINARY comes back as '' (str): bytes again.
TIMESTAMP is read as the UTC wall clock (utcfromtimestamp), independent of TZ: right.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
import struct
from collections.abc import Iterator
from typing import Any

from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.constants import NONE_SOURCE
from pymysqlreplication.event import MariadbGtidEvent, QueryEvent, RotateEvent, XidEvent
from pymysqlreplication.row_event import DeleteRowsEvent, RowsEvent, UpdateRowsEvent, WriteRowsEvent

from realdb.model import Capture, Column, Event, Row, RowChange, TableSchema, Value
from realdb.servers import MariaDBServer
from realdb.workload import Workload, wait_for_new_second

Schemas = dict[tuple[str, str], TableSchema]
BINLOG_READER_SERVER_ID = 4242  # any id but the server's own (1)


def capture(server: MariaDBServer, workload: Workload) -> Capture:
    """Run `workload` on `server` and return the binlog's events and the final rows."""
    with contextlib.closing(server.connect()) as conn, conn.cursor() as cur:
        cur.execute("SHOW MASTER STATUS")
        log_file, log_pos = cur.fetchone()[:2]
        after_ddl = _run(cur, workload)
        schemas = _schemas(cur, workload.namespaces)
        final = {key: (schema, _final_rows(cur, schema)) for key, schema in schemas.items()}
    events = _read_binlog(server, log_file, log_pos, after_ddl)
    return Capture("mariadb", server.version, events, final)


def _run(cur: Any, workload: Workload) -> list[tuple[str, Schemas]]:
    """Run the statements; for each statement the binlog writes as a statement (DDL,
    TRUNCATE), its text and the schemas right after it."""
    after_ddl = []
    for statement in workload.statements:
        if statement.new_second:
            wait_for_new_second()
        cur.execute(statement.sql)
        if statement.kind in ("ddl", "truncate"):
            after_ddl.append((statement.sql, _schemas(cur, workload.namespaces)))
    return after_ddl


# ---------------------------------------------------------------- catalog


def _schemas(cur: Any, namespaces: tuple[str, ...]) -> Schemas:
    """Every table of `namespaces` as information_schema has it now. A JSON column is
    LONGTEXT with the CHECK (json_valid(`col`)) that MariaDB adds: its type is 'json'."""
    marks = ", ".join(["%s"] * len(namespaces))
    cur.execute("SELECT CONSTRAINT_SCHEMA, TABLE_NAME, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS"
                f" WHERE CONSTRAINT_SCHEMA IN ({marks}) AND LEVEL = 'Column'", namespaces)
    checks = set(cur.fetchall())
    cur.execute("SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE = 'YES'"
                f" FROM information_schema.COLUMNS WHERE TABLE_SCHEMA IN ({marks})"
                " ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION", namespaces)
    columns: dict[tuple[str, str], list[Column]] = {}
    for db, table, name, col_type, nullable in cur.fetchall():
        is_json = (db, table, f"json_valid(`{name}`)") in checks
        columns.setdefault((db, table), []).append(Column(name, "json" if is_json else col_type, bool(nullable)))
    cur.execute(
        "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE"
        f" WHERE CONSTRAINT_NAME = 'PRIMARY' AND TABLE_SCHEMA IN ({marks})"
        " ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION", namespaces)
    pks: dict[tuple[str, str], list[str]] = {}
    for db, table, name in cur.fetchall():
        pks.setdefault((db, table), []).append(name)
    return {key: TableSchema(key[0], key[1], tuple(cols), tuple(pks.get(key, ())))
            for key, cols in columns.items()}


def _final_rows(cur: Any, schema: TableSchema) -> list[Row]:
    """SELECT * in key (else full-row) order. FLOAT is selected as DOUBLE: the text
    protocol prints a FLOAT with 6 digits (1.2345678 as 1.23457)."""
    select = ", ".join(f"CAST(`{c.name}` AS DOUBLE)" if c.type.startswith("float") else f"`{c.name}`"
                       for c in schema.columns)
    order = ", ".join(f"`{name}`" for name in schema.pk) or ", ".join(
        str(i + 1) for i in range(len(schema.columns)))
    cur.execute(f"SELECT {select} FROM `{schema.db}`.`{schema.name}` ORDER BY {order}")
    return [{c.name: _selected_value(v, c) for c, v in zip(schema.columns, row, strict=True)} for row in cur.fetchall()]


def _selected_value(value: Any, column: Column) -> Value:
    """What PyMySQL returns as the model's value: BIT is bytes there, an int here."""
    if value is None:
        return None
    if column.type.startswith("bit("):
        return int.from_bytes(value, "big")
    if column.type.startswith("float"):
        return _float32(value)
    return value


# ---------------------------------------------------------------- binlog


def _read_binlog(server: MariaDBServer, log_file: str, log_pos: int,
                 after_ddl: list[tuple[str, Schemas]]) -> list[Event]:
    """Every row event and statement (DDL, TRUNCATE) from (log_file, log_pos) to the end
    of the log, in log order, each with its GTID, XID, time, position and schema."""
    stream = BinLogStreamReader(
        connection_settings=server.connection_settings(), server_id=BINLOG_READER_SERVER_ID,
        # is_mariadb=True would start from the first binlog (it drops log_file/log_pos); the
        # plain COM_BINLOG_DUMP with a position works with MariaDB and still gets its GTIDs
        blocking=False, resume_stream=True, log_file=log_file, log_pos=log_pos,
        only_events=[RotateEvent, MariadbGtidEvent, QueryEvent, XidEvent,
                     WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent],
        enable_logging=False)
    ddl = iter(after_ddl)
    schemas: Schemas = {}
    events: list[Event] = []
    open_tx: list[Event] = []  # row events waiting for their transaction's XID
    gtid = None
    try:
        with _time2_fixed():
            for ev in stream:
                if isinstance(ev, RotateEvent):
                    log_file = ev.next_binlog
                    continue
                position = dict(ts=ev.timestamp, gtid=gtid, log_file=log_file,
                                log_pos=ev.packet.log_pos - ev.packet.event_size)
                if isinstance(ev, MariadbGtidEvent):
                    gtid = ev.gtid
                elif isinstance(ev, XidEvent):
                    for event in open_tx:
                        event.xid = ev.xid
                    open_tx.clear()
                elif isinstance(ev, QueryEvent) and ev.query not in ("BEGIN", "COMMIT"):
                    sql, schemas = _next_ddl(ddl, ev.query)
                    events.append(_ddl_event(sql, schemas, **position))
                elif isinstance(ev, RowsEvent):
                    open_tx.append(_rows_event(ev, schemas[(ev.schema, ev.table)], **position))
                    events.append(open_tx[-1])
    finally:
        stream.close()
    if next(ddl, None) is not None:
        raise AssertionError("the binlog ends before the workload's last DDL")
    for seq, event in enumerate(events):
        event.seq = seq
    return events


def _next_ddl(ddl: Iterator[tuple[str, Schemas]], query: str) -> tuple[str, Schemas]:
    """The workload's next DDL, which must be the statement the binlog has."""
    sql, schemas = next(ddl, ("", {}))
    if sql != query:
        raise AssertionError(f"binlog statement {query!r} is not the workload's next DDL {sql!r}")
    return sql, schemas


_DDL_TARGET = re.compile(
    r"^\s*(?:CREATE|ALTER|DROP|TRUNCATE)\s+(?:TABLE|DATABASE|SCHEMA)?\s*(?:IF\s+(?:NOT\s+)?EXISTS\s+)?"
    r"`?(\w+)`?(?:\.`?(\w+)`?)?", re.IGNORECASE)


def _ddl_event(sql: str, schemas: Schemas, **position: Any) -> Event:
    match = _DDL_TARGET.match(sql)
    if not match:
        raise AssertionError(f"cannot tell which table {sql!r} is about")
    is_database = re.match(r"^\s*\w+\s+(DATABASE|SCHEMA)\b", sql, re.IGNORECASE) is not None
    db, table = (match.group(1), "") if is_database else (match.group(1), match.group(2) or "")
    op = "TRUNCATE" if sql.lstrip().upper().startswith("TRUNCATE") else "DDL"
    return Event("ddl", db, table, op, schemas.get((db, table)), sql=sql, **position)


def _rows_event(ev: RowsEvent, schema: TableSchema, **position: Any) -> Event:
    names = [c.name for c in ev.columns]
    if names != [c.name for c in schema.columns]:
        raise AssertionError(f"{schema.db}.{schema.name}: binlog columns {names} are not the catalog's")
    if isinstance(ev, WriteRowsEvent):
        op, rows = "INSERT", [RowChange(None, _row(r["values"], r["none_sources"], schema)) for r in ev.rows]
    elif isinstance(ev, DeleteRowsEvent):
        op, rows = "DELETE", [RowChange(_row(r["values"], r["none_sources"], schema), None) for r in ev.rows]
    else:
        op, rows = "UPDATE", [RowChange(_row(r["before_values"], r["before_none_sources"], schema),
                                        _row(r["after_values"], r["after_none_sources"], schema)) for r in ev.rows]
    return Event("rows", schema.db, schema.name, op, schema, rows, **position)


def _row(values: dict[str, Any], none_sources: dict[str, str], schema: TableSchema) -> Row:
    return {c.name: _value(values[c.name], none_sources.get(c.name), c) for c in schema.columns}


# ---------------------------------------------------------------- value corrections


def _value(value: Any, none_source: str | None, column: Column) -> Value:
    """The library's value as the database holds it (see the module docstring)."""
    kind = column.type
    if value is None:
        return "" if none_source == NONE_SOURCE.EMPTY_SET else None
    if kind.startswith("set("):
        return ",".join(label for label in _labels(kind) if label in value)
    if kind.startswith("bit("):
        return int(value, 2)
    if kind.startswith("float"):
        return _float32(value)
    if kind.startswith("year"):
        return 0 if value == 1900 else value
    if re.match(r"(var)?binary\(|(tiny|medium|long)?blob", kind):
        data = value.encode() if isinstance(value, str) else value
        width = re.match(r"binary\((\d+)\)", kind)
        return data.ljust(int(width.group(1)), b"\0") if width else data
    return value


def _labels(set_type: str) -> list[str]:
    """The labels of "set('a','b''c')" in definition order."""
    return [label.replace("''", "'") for label in re.findall(r"'((?:[^']|'')*)'", set_type)]


def _float32(value: float) -> float:
    """The shortest decimal that reads back as the same float32 (3.14, not
    3.140000104904175): what a FLOAT column shows its user and what vendors print."""
    packed = struct.pack("<f", value)
    for digits in range(1, 10):
        candidate = float(f"{value:.{digits}g}")
        with contextlib.suppress(OverflowError):  # rounded up past the largest float32
            if struct.pack("<f", candidate) == packed:
                return candidate
    raise AssertionError(f"{value!r} is not a float32")


def _read_time2(self: RowsEvent, column: Any) -> dt.timedelta:
    """TIME(fsp) as MariaDB writes it (MySQL 5.6 format): 3 bytes of sign bit and
    hour:minute:second, 0-3 bytes of fraction, the whole a big-endian number offset by
    0x800000 << fraction bits, so a negative time is the two's complement of all of it."""
    frac_bytes = (column.fsp + 1) // 2
    raw = int.from_bytes(self.packet.read(3 + frac_bytes), "big") - (0x800000 << (8 * frac_bytes))
    magnitude = abs(raw)
    packed, fraction = magnitude >> (8 * frac_bytes), magnitude & ((1 << (8 * frac_bytes)) - 1)
    value = dt.timedelta(hours=packed >> 12 & 0x3FF, minutes=packed >> 6 & 0x3F, seconds=packed & 0x3F,
                         microseconds=fraction * 10 ** (6 - 2 * frac_bytes))
    return -value if raw < 0 else value


@contextlib.contextmanager
def _time2_fixed() -> Iterator[None]:
    """pymysqlreplication with `_read_time2` for TIME(fsp), while we read (rows are
    decoded lazily, so inside)."""
    attribute = "_RowsEvent__read_time2"  # the library's private decoder
    original = getattr(RowsEvent, attribute)
    setattr(RowsEvent, attribute, _read_time2)
    try:
        yield
    finally:
        setattr(RowsEvent, attribute, original)
