"""What a captured change log is, between the capture (capture_*.py) and the vendor
renderers (render_*.py): plain Python values as the database driver reads them, so each
renderer renders them the way its vendor does.

Values (`Value`): None (SQL NULL), int, decimal.Decimal, float, str (text, and MariaDB
JSON, which is LONGTEXT: the document exactly as written), bytes (binary and blob
columns, trailing zero bytes kept), datetime.date, datetime.datetime (naive: DATETIME as
written; TIMESTAMP as the UTC wall clock), datetime.timedelta (TIME, also over 24 h and
negative), bool (PostgreSQL boolean). YEAR is an int. ENUM and SET are their labels (str).

Added with the capture (capture_mariadb.py, capture_postgres.py):
- MariaDB SET: the labels in definition order, comma-joined ('red,blue'); '' is the empty
  set (not NULL). BIT(n) is an int. FLOAT is the shortest decimal that reads back as the
  same float32, as a Python float (3.14, not 3.140000104904175); DOUBLE is exact.
  BINARY(n) keeps its n bytes. YEAR 0000 is 0.
- PostgreSQL: numeric is a Decimal with the server's digits and scale; real and double
  precision are floats (also inf/-inf); bytea is bytes; json and jsonb are the server's
  text (jsonb: normalised by the server); time is a timedelta (0..24 h); timestamp is a
  naive datetime; timestamptz is an AWARE datetime in UTC (tzinfo=timezone.utc), so
  renderers can tell it from timestamp; character(n) keeps its padding.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

Value = None | bool | int | Decimal | float | str | bytes | dt.date | dt.datetime | dt.timedelta
Row = dict[str, Value]


@dataclass(frozen=True)
class Column:
    name: str
    # the full type as the catalog gives it, lower-case: MariaDB information_schema
    # COLUMN_TYPE ("int(11)", "bigint(20) unsigned", "decimal(65,30)", "datetime(6)",
    # "varbinary(16)", "enum('a','b')"; a JSON column is "json"), PostgreSQL
    # format_type() ("integer", "numeric(38,10)", "timestamp(6) without time zone")
    type: str
    nullable: bool = True


@dataclass(frozen=True)
class TableSchema:
    db: str  # MariaDB database; PostgreSQL: the database name
    name: str
    columns: tuple[Column, ...]
    pk: tuple[str, ...] = ()
    schema: str | None = None  # PostgreSQL schema ("public"); None for MariaDB

    def column(self, name: str) -> Column:
        return next(c for c in self.columns if c.name == name)


@dataclass
class RowChange:
    """Rows keyed by column name in the table's column order. MariaDB images are whole
    rows (binlog_row_image=FULL). PostgreSQL before images follow the table's replica
    identity: FULL gives whole rows; DEFAULT gives None for an UPDATE that keeps its key,
    only the old key columns for one that changes it, only the key columns for a DELETE."""

    before: Row | None  # None for INSERT
    after: Row | None  # None for DELETE


@dataclass
class Event:
    """One entry of the change log in log order: the rows of one row event (one statement
    may give several events), or one DDL statement (TRUNCATE included)."""

    kind: Literal["rows", "ddl"]
    db: str  # MariaDB database; PostgreSQL: the database name (its schema: schema.schema)
    table: str  # the table the rows or the DDL are about ('' for a DDL that names none)
    op: Literal["INSERT", "UPDATE", "DELETE", "DDL", "TRUNCATE"]
    schema: TableSchema | None  # the table's columns in force for this event (after a DDL)
    rows: list[RowChange] = field(default_factory=list)
    # DDL text as the log has it. PostgreSQL logs no DDL: the statement the workload ran;
    # and TRUNCATE, which logical decoding gives without text, as 'TRUNCATE TABLE "s"."t"'
    sql: str | None = None
    seq: int = 0  # 0, 1, 2 ... in log order over the whole capture
    ts: int = 0  # the log's event time, epoch seconds (binlog header; PostgreSQL commit time)
    ts_us: int = 0  # PostgreSQL commit time in microseconds; 0 for MariaDB
    gtid: str | None = None  # MariaDB "domain-server-seq" of the transaction
    xid: int | None = None  # transaction id (MariaDB XID, PostgreSQL xid)
    log_file: str | None = None  # MariaDB binlog file, e.g. "mysql-bin.000001"
    log_pos: int | None = None  # MariaDB position of the event in that file
    # PostgreSQL LSN of the change, as an integer; of a DDL, the WAL insert position right
    # after it committed (so it sorts between the changes before and after it)
    lsn: int | None = None


@dataclass
class Capture:
    source: Literal["mariadb", "postgres"]
    server_version: str
    events: list[Event]
    # SELECT * of every table after the workload, in primary-key (else full-row) order,
    # keyed by (namespace, table): MariaDB (database, table), PostgreSQL (schema, table)
    final: dict[tuple[str, str], tuple[TableSchema, list[Row]]]

    def tables(self) -> list[TableSchema]:
        return [schema for schema, _ in self.final.values()]
