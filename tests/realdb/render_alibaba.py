"""A captured MariaDB change log rendered the way Alibaba Cloud DataWorks, DataHub and DTS,
and Huawei DRS Avro, write it into Kafka.

Each `render_*` takes a `Capture` (model.py) and returns Kafka records with per-partition
offsets (delivery.PartitionWriter); `db` replaces the captured database name wherever the
vendor writes one.

The truth is FORMATS.md (§6 DataWorks, §7 DataHub, §8 E1 DTS Avro, E2 Shareplex, §4 A5
DRS Avro, §12 ordering) and the vendor documents under shared/vendor-docs. Where those are
silent a choice is made and marked "CHOICE" in the comment of the function that makes
it. Shared with render_canal.py, so every MySQL-family vendor of the harness sees the
source alike: the column types as the catalog gives them (`mysql_type`: MariaDB's JSON is
the LONGTEXT that information_schema reports), the value texts (`mysql_value_text`: Java's
number texts, MySQL's temporal texts, BINARY(n) without the trailing zero bytes the binlog
strips) and DRS's value texts. A type the typed renderers (DataWorks, DataHub, DTS Avro)
do not know (geometry, PostgreSQL's) raises ValueError. Choices shared by every format here:

- CHOICE: heartbeats (DataWorks MHEARTBEAT, DTS HEARTBEAT) every HEARTBEAT_S seconds of
  source time and once after the last change, each to every partition: they tell a
  consumer how far the task has read, which only helps if every partition carries them.
  The interval is not documented.
- CHOICE: the JVM of every vendor runs at UTC (DataWorks turns DATETIME wall clocks into
  epoch milliseconds in its JVM zone; Alibaba Cloud hosts default to Asia/Shanghai).
- Processing and write times are the source time plus seeded delays, never decreasing.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import random
import re
from decimal import Decimal
from json.encoder import encode_basestring
from typing import Any

from realdb.delivery import PartitionWriter, key_partition, table_partition
from realdb.model import Capture, Column, Event, Row, RowChange, TableSchema, Value
from realdb.render_canal import (
    MysqlType,
    binlog_bytes,
    decimal_text,
    drs_value_text,
    java_double_text,
    java_float_text,
    mysql_datetime_text,
    mysql_type,
    mysql_value_text,
    with_db,
)
from renderers import drs_avro as drs_encoding, dts_avro as dts_encoding
from synth import Record
from udfs import drs_avro as drs_schemas

HEARTBEAT_S = 5

# ----------------------------------------------------------------------------- column types

# MySQL type name -> the kind the typed renderers (DataWorks, DataHub, DTS Avro) dispatch on
_KINDS = {
    "tinyint": "int", "smallint": "int", "mediumint": "int", "int": "int", "integer": "int", "bigint": "int",
    "bit": "bit", "decimal": "decimal", "numeric": "decimal", "float": "float", "double": "double", "real": "double",
    "char": "char", "varchar": "char", "binary": "binary", "varbinary": "binary",
    "tinytext": "text", "text": "text", "mediumtext": "text", "longtext": "text",
    "tinyblob": "blob", "blob": "blob", "mediumblob": "blob", "longblob": "blob",
    "date": "date", "datetime": "datetime", "timestamp": "timestamp", "time": "time", "year": "year",
    "enum": "enum", "set": "set",
}


def _require_mysql(capture: Capture) -> None:
    """These renderers write what the vendors write for a MySQL source (the doc examples'
    shapes); a PostgreSQL source has others (schema names, its own types)."""
    if capture.source != "mariadb":
        raise ValueError(f"a {capture.source} capture: these renderers render MySQL-family sources only")


def _kind(t: MysqlType) -> str:
    if t.base not in _KINDS:
        raise ValueError(f"type {t.text!r} is not a MySQL type these renderers know")
    return _KINDS[t.base]


def _precision(t: MysqlType) -> int | None:
    """The first number in a type's parentheses: DECIMAL(65,30) 65, BIT(12) 12."""
    head = t.args.split(",")[0]
    return int(head) if head.isdigit() else None


def _java_number_text(t: MysqlType, value: float) -> str:
    """FLOAT as Java's Float.toString of its single value, DOUBLE as Double.toString."""
    return java_float_text(value) if t.base == "float" else java_double_text(value)


def _time_parts(value: dt.timedelta) -> tuple[int, int, int, int, int]:
    """sign, hours, minutes, seconds, microseconds of a TIME (which may pass 24 h or be negative)."""
    micros = value // dt.timedelta(microseconds=1)
    seconds, micro = divmod(abs(micros), 1_000_000)
    minutes, second = divmod(seconds, 60)
    hours, minute = divmod(minutes, 60)
    return (-1 if micros < 0 else 1), hours, minute, second, micro


def _epoch_micros(value: dt.datetime) -> int:
    """A naive UTC wall clock (a TIMESTAMP as the capture holds it) as epoch microseconds."""
    return (value - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1)


class _Raw(str):
    """JSON text written as is: a number whose digits must not pass through a float."""


def _dumps(value: Any) -> str:
    """Compact JSON as the vendors' Java serializers write it (fastjson: no spaces, non-ASCII
    as is), with _Raw numbers verbatim. A string is written as json.dumps(ensure_ascii=False)
    writes it, by the function json.dumps calls (a renderer writes millions of them)."""
    if isinstance(value, _Raw):
        return str(value)
    if isinstance(value, str):
        return encode_basestring(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{encode_basestring(k)}:{_dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_dumps(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


# ----------------------------------------------------------------------------- delivery helpers


class _Clock:
    """Vendor processing times (epoch ms): a little after the source time, never going back."""

    def __init__(self, rng: random.Random, low_ms: int, high_ms: int) -> None:
        self.rng = rng
        self.low_ms = low_ms
        self.high_ms = high_ms
        self.last = 0

    def after(self, source_ms: int) -> int:
        self.last = max(self.last + 1, source_ms + self.rng.randrange(self.low_ms, self.high_ms))
        return self.last


class _Heartbeats:
    """The source seconds of the heartbeats: every HEARTBEAT_S seconds from the first event,
    each sent before the first change at or after it, and one after the last change."""

    def __init__(self, events: list[Event]) -> None:
        self.next = (events[0].ts if events else 0) + HEARTBEAT_S
        self.last_ts = events[-1].ts if events else 0

    def due(self, ts: int) -> list[int]:
        seconds = []
        while self.next <= ts:
            seconds.append(self.next)
            self.next += HEARTBEAT_S
        return seconds

    def closing(self) -> list[int]:
        return [*self.due(self.last_ts), self.last_ts + 1]


def _transaction_id(event: Event) -> str | None:
    return event.gtid or (None if event.xid is None else str(event.xid))


def _transactions(events: list[Event]) -> list[list[Event]]:
    """The events grouped by transaction: consecutive row events of one GTID (or XID). A DDL
    stands alone (MySQL logs it outside BEGIN ... COMMIT), as does a row event with neither."""
    groups: list[list[Event]] = []
    for event in events:
        previous = groups[-1][-1] if groups else None
        if (previous is not None and event.kind == previous.kind == "rows"
                and _transaction_id(event) is not None and _transaction_id(event) == _transaction_id(previous)):
            groups[-1].append(event)
        else:
            groups.append([event])
    return groups


def _binlog_position(event: Event) -> tuple[int, int]:
    """(file number, position) of an event: ("mysql-bin.000012", 4711) -> (12, 4711)."""
    match = re.search(r"(\d+)$", event.log_file or "")
    return (int(match.group(1)) if match else 0), (event.log_pos or 0)


def _ddl_text(event: Event, db: str) -> str:
    """The statement with the captured database name replaced where it qualifies a name."""
    return with_db(event.sql or "", event.db, db)


def _row_images(op: str, change: RowChange) -> list[tuple[bool, Row]]:
    """The images a one-image-per-message vendor sends for a row change, as (is_before, row):
    INSERT its after image, DELETE its before image, UPDATE before then after."""
    images = [(True, change.before), (False, change.after)]
    wanted = {"INSERT": [False], "DELETE": [True], "UPDATE": [True, False]}[op]
    return [(is_before, row) for is_before, row in images if is_before in wanted and row is not None]


def _table(event: Event) -> TableSchema:
    assert event.schema is not None, f"row event {event.seq} has no table schema"
    return event.schema


class _SequenceIds:
    """DataWorks `sequenceId`s (§6): "<13-digit ms><6-digit counter>" as every example has
    them, the ms a few minutes before the first change (the task start, FORMATS §6)."""

    def __init__(self, events: list[Event], rng: random.Random) -> None:
        self.start_ms = ((events[0].ts if events else 0) - 300) * 1000 + rng.randrange(1000)
        self.counter = 0

    def next(self) -> str:
        sequence_id = str(self.start_ms * 1_000_000 + self.counter)
        self.counter += 1
        return sequence_id


# ----------------------------------------------------------------------------- DataWorks (§6)

# MySQL kind -> DataWorks type. The doc names only the six types; the mapping is DataX's
# mysqlreader table (integers Long; float, double, decimal Double; char, text, year String;
# date, datetime, timestamp, time Date; blobs, varbinary Bytes; bit Boolean), the same six
# types. CHOICE: only BIT(1) is BOOLEAN; a wider BIT is LONG (its number), which a boolean
# would lose.
_DATAWORKS_TYPES = {
    "int": "LONG", "decimal": "DOUBLE", "float": "DOUBLE", "double": "DOUBLE",
    "char": "STRING", "text": "STRING", "year": "STRING", "enum": "STRING", "set": "STRING",
    "binary": "BYTES", "blob": "BYTES", "date": "DATE", "datetime": "DATE", "timestamp": "DATE", "time": "DATE",
}
_DATAWORKS_OPS = {("INSERT", False): "INSERT", ("DELETE", True): "DELETE",
                  ("UPDATE", True): "UPDATE_BEFOR", ("UPDATE", False): "UPDATE_AFTER"}
_GREGORIAN_CUTOVER = dt.date(1582, 10, 15)


def _java_epoch_days(day: dt.date) -> int:
    """Days since 1970-01-01 as java.util.GregorianCalendar counts them: a date before the
    1582-10-15 cutover is read as a JULIAN date, so 1000-01-01 is the proleptic 1000-01-06.
    CHOICE: DataWorks builds DATE values with java.util/java.sql dates (as DataX does)."""
    if day >= _GREGORIAN_CUTOVER:
        return (day - dt.date(1970, 1, 1)).days
    a = (14 - day.month) // 12
    year, month = day.year + 4800 - a, day.month + 12 * a - 3
    julian_day_number = day.day + (153 * month + 2) // 5 + 365 * year + year // 4 - 32083
    return julian_day_number - 2440588


def _java_epoch_ms(value: dt.date | dt.timedelta) -> int:
    """A DataWorks DATE value: epoch milliseconds (§6, "13-digit ms"; microseconds are cut).
    DATETIME is its wall clock read in the JVM zone (UTC here), TIMESTAMP its UTC instant.
    CHOICE: TIME is the signed duration from 1970-01-01T00:00 (java.sql.Time's epoch)."""
    if isinstance(value, dt.timedelta):
        sign, hours, minutes, seconds, micros = _time_parts(value)
        return sign * (((hours * 60 + minutes) * 60 + seconds) * 1000 + micros // 1000)
    ms = _java_epoch_days(value.date() if isinstance(value, dt.datetime) else value) * 86_400_000
    if isinstance(value, dt.datetime):
        ms += ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000
    return ms


def _dataworks_type(column: Column) -> str:
    t = mysql_type(column)
    kind = _kind(t)
    if kind == "bit":
        return "BOOLEAN" if _precision(t) == 1 else "LONG"
    return _DATAWORKS_TYPES[kind]


def _dataworks_value(column: Column, value: Value) -> Any:
    """A value as DataWorks writes it (§6 type list). DOUBLE values are JSON *strings* of the
    exact digits ("1.100000"), as in the captured messages of Paimon's test data, not the
    numbers the doc's table promises: DataX-style DoubleColumns hold BigDecimal text (a
    FLOAT/DOUBLE as `new BigDecimal(String.valueOf(x)).toPlainString()`)."""
    if value is None:
        return None
    t = mysql_type(column)
    vendor_type = _dataworks_type(column)
    if vendor_type == "BOOLEAN":
        return value == 1
    if vendor_type == "LONG":
        return value
    if vendor_type == "DOUBLE":
        if isinstance(value, Decimal):
            return decimal_text(value, t.scale)
        return format(Decimal(_java_number_text(t, value)), "f")
    if vendor_type == "BYTES":
        return base64.b64encode(binlog_bytes(t, value)).decode("ascii")
    if vendor_type == "DATE":
        return _java_epoch_ms(value)
    return f"{value:04d}" if t.base == "year" else str(value)


def _dataworks_image(schema: TableSchema, row: Row | None) -> dict[str, Any] | None:
    if row is None:
        return None
    return {"dataColumn": {c.name: _dataworks_value(c, row.get(c.name)) for c in schema.columns}}


def _dataworks_message(schema: TableSchema, db: str, op: str, before: Row | None, after: Row | None,
                       sequence_id: str, event_ms: int, system_ms: int) -> dict[str, Any]:
    """One change message, keys and explicit nulls as in the doc's Kafka examples.
    CHOICE: no `#alibaba_rds_row_id#` column for keyless tables: that is RDS MySQL's hidden
    key, which a self-managed MySQL does not have."""
    return {
        "schema": {
            "dataColumn": [{"name": c.name, "type": _dataworks_type(c)} for c in schema.columns],
            "primaryKey": list(schema.pk) or None,
            "source": {"dbType": "MySQL", "dbName": db, "tableName": schema.name},
        },
        "payload": {
            "before": _dataworks_image(schema, before), "after": _dataworks_image(schema, after),
            "sequenceId": sequence_id,
            "timestamp": {"eventTime": event_ms, "systemTime": system_ms, "checkpointTime": event_ms},
            "op": op, "ddl": None,
        },
        "version": "0.0.1",
    }


def _dataworks_heartbeat(second: int) -> str:
    """MHEARTBEAT exactly as the doc's Kafka example: nulls everywhere but the times."""
    ms = second * 1000
    return _dumps({
        "schema": {"dataColumn": None, "primaryKey": None, "source": None},
        "payload": {"before": None, "after": None, "sequenceId": None,
                    "timestamp": {"eventTime": ms, "checkpointTime": ms}, "op": "MHEARTBEAT", "ddl": None},
        "version": "0.0.1",
    })


def _send_everywhere(writer: PartitionWriter, timestamp_ms: int, value: str) -> None:
    for partition in range(writer.partitions):
        writer.send(partition, timestamp_ms, value)


def render_dataworks_json(capture: Capture, db: str, topic: str, partitions: int = 3, seed: int = 0) -> list[Record]:
    """DataWorks "sync whole database to Kafka" JSON (§6), in the default two-message update
    mode: UPDATE_BEFOR (before only) then UPDATE_AFTER (after only) sharing one sequenceId.

    - Partitions by primary key, keyless tables by table (what the DataHub page states for
      DataWorks; the Kafka page is silent); each message goes by the key of its own image,
      so the two halves of a key-changing update can land in different partitions.
    - NO DDL messages, TRUNCATE included: their `ddl.ddlMeta` is a Java-serialized fastsql
      AST (com.alibaba.di.plugin.center.meta.DDLMeta) that cannot be produced faithfully
      without Alibaba's classes. A consumer of this stream does not see a TRUNCATE.
    - CHOICE: no TRANSACTION_BEGIN/END messages (no example shows them); no Kafka key."""
    _require_mysql(capture)
    rng = random.Random(seed)
    writer = PartitionWriter(topic, partitions)
    sequence_ids = _SequenceIds(capture.events, rng)
    clock = _Clock(rng, 300, 1500)
    heartbeats = _Heartbeats(capture.events)
    for event in capture.events:
        for second in heartbeats.due(event.ts):
            _send_everywhere(writer, second * 1000, _dataworks_heartbeat(second))
        if event.kind != "rows":
            continue
        schema = _table(event)
        for change in event.rows:
            sequence_id = sequence_ids.next()
            system_ms = clock.after(event.ts * 1000)
            for is_before, row in _row_images(event.op, change):
                before, after = (row, None) if is_before else (None, row)
                message = _dataworks_message(schema, db, _DATAWORKS_OPS[(event.op, is_before)], before, after,
                                             sequence_id, event.ts * 1000, system_ms)
                writer.send(key_partition(schema, row, partitions), system_ms, _dumps(message))
    for second in heartbeats.closing():
        _send_everywhere(writer, second * 1000, _dataworks_heartbeat(second))
    return writer.records


# ----------------------------------------------------------------------------- DataHub Tuple (§7)

# CHOICE: the meta column is spelled `_execute_time_` as DataWorks' page "Fields used for
# real-time synchronization" (LONG, the binlog time) and the project's DESIGN spell it; the
# DataHub message-format page spells it `_excute_time_`.
EXECUTE_TIME = "_execute_time_"


def _datahub_value(column: Column, value: Value) -> Any:
    """A value as the typed DataHub column DataWorks creates for it holds it. DataHub Tuple has
    BIGINT, DOUBLE, DECIMAL, STRING, BOOLEAN, TIMESTAMP (µs) only; DataWorks writes its
    §6 value into the column type (CHOICE, undocumented: LONG -> BIGINT, BOOLEAN ->
    BOOLEAN, DOUBLE -> DOUBLE or, for MySQL DECIMAL, DECIMAL with the exact digits, STRING
    -> STRING, DATE -> TIMESTAMP as the DATE milliseconds x 1000, BYTES -> STRING as the
    bytes read as UTF-8 (DataX's BytesColumn.asString(); binary that is not UTF-8 is lost
    to U+FFFD))."""
    if value is None:
        return None
    t = mysql_type(column)
    kind = _kind(t)
    streamx = _dataworks_value(column, value)
    if kind == "decimal":
        return _Raw(streamx)
    if kind in ("float", "double"):
        return _Raw(java_double_text(float(streamx)))
    if kind in ("binary", "blob"):
        return binlog_bytes(t, value).decode("utf-8", errors="replace")
    if _DATAWORKS_TYPES.get(kind) == "DATE":
        return streamx * 1000
    return streamx


def _datahub_record(schema: TableSchema, db: str, sequence_id: str, op: str, is_before: bool, row: Row,
                    event_ms: int) -> dict[str, Any]:
    """One Tuple record: the meta columns (§7; the before/after flags Y/N), then the table's
    columns. CHOICE: `_source_table_` is `db.table` (the doc: "the source table name"; a
    whole-database task must tell its databases apart)."""
    meta: dict[str, Any] = {
        "_sequence_id_": sequence_id, "_operation_type_": op, EXECUTE_TIME: event_ms,
        "_source_table_": f"{db}.{schema.name}",
        "_before_image_": "Y" if is_before else "N", "_after_image_": "N" if is_before else "Y",
    }
    return meta | {c.name: _datahub_value(c, row.get(c.name)) for c in schema.columns}


def render_datahub_tuple(capture: Capture, db: str, topic: str, partitions: int = 3, seed: int = 0) -> list[Record]:
    """DataHub Tuple records written by DataWorks (§7), one JSON object per record, one
    record per row image (an UPDATE is two, sharing `_sequence_id_`).

    - Shards (partitions) by primary key; keyless tables at random (the doc: "随机分片").
    - No heartbeats and no DDL (the doc: Tuple topics carry neither), so a TRUNCATE is
      invisible here.
    - CHOICE: all tables in the one `topic` (DataWorks maps each table to its own topic;
      `_source_table_` tells them apart); no Kafka key."""
    _require_mysql(capture)
    rng = random.Random(seed)
    writer = PartitionWriter(topic, partitions)
    sequence_ids = _SequenceIds(capture.events, rng)
    clock = _Clock(rng, 300, 1500)
    for event in capture.events:
        if event.kind != "rows":
            continue
        schema = _table(event)
        for change in event.rows:
            sequence_id = sequence_ids.next()
            written_ms = clock.after(event.ts * 1000)
            for is_before, row in _row_images(event.op, change):
                record = _datahub_record(schema, db, sequence_id, event.op[0], is_before, row, event.ts * 1000)
                partition = key_partition(schema, row, partitions) if schema.pk else rng.randrange(partitions)
                writer.send(partition, written_ms, _dumps(record))
    return writer.records


# ----------------------------------------------------------------------------- DTS Shareplex Json (§8 E2)


def _utc_text(second: int) -> str:
    """Shareplex times: UTC, "yyyy-MM-ddTHH:mm:ss" as in every example (no Z, no fraction)."""
    return dt.datetime.fromtimestamp(second, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S")


def _shareplex_text(column: Column, value: Value) -> str | None:
    """Values are strings or null (§8 E2). CHOICE (undocumented for MySQL sources): binary as
    upper-case hex (how Oracle, SharePlex's home, prints RAW); TIMESTAMP as its UTC wall
    clock in DATETIME layout; everything else as MySQL prints it."""
    return mysql_value_text(mysql_type(column), value, lambda data: data.hex().upper(), mysql_datetime_text)


def _shareplex_image(schema: TableSchema, row: Row, names: list[str] | None = None) -> dict[str, str | None]:
    return {c.name: _shareplex_text(c, row.get(c.name)) for c in schema.columns if names is None or c.name in names}


def _shareplex_body(event: Event, change: RowChange | None) -> dict[str, Any]:
    """`data`/`key` as the doc's examples: INSERT the new row; DELETE the deleted row; UPDATE
    the changed columns' new values in `data` and the before image in `key` (CHOICE: the
    whole before image, which a MySQL source logs in full; the doc does not say which
    columns `key` holds); TRUNCATE (listed by the doc, no example) meta only."""
    if change is None:
        return {}
    schema = _table(event)
    if event.op == "INSERT":
        return {"data": _shareplex_image(schema, change.after or {})}
    if event.op == "DELETE":
        return {"data": _shareplex_image(schema, change.before or {})}
    before, after = change.before or {}, change.after or {}
    changed = [c.name for c in schema.columns if after.get(c.name) != before.get(c.name)]
    return {"data": _shareplex_image(schema, after, changed), "key": _shareplex_image(schema, before)}


def _shareplex_operations(group: list[Event]) -> list[tuple[Event, RowChange | None]]:
    """The operations of one transaction: its row changes, or a TRUNCATE (other DDL is not in
    the format's op list)."""
    if group[0].kind == "ddl":
        return [(group[0], None)] if group[0].op == "TRUNCATE" else []
    return [(event, change) for event in group for change in event.rows]


def render_shareplex_json(capture: Capture, db: str, topic: str, partitions: int = 3, seed: int = 0) -> list[Record]:
    """DTS "Shareplex Json" (§8 E2): one message per row, `meta` with the doc's keys in the
    doc's order (time, userid, op, scn, rowid, trans, seq, size, table, idx, posttime).

    Ordering fields, per transaction of the binlog (CHOICE: the doc describes an Oracle
    source; for MySQL): `scn` = binlog file number * 2^32 + position of the transaction's
    first event, so it grows with the log; `trans` = the GTID (else the XID); `seq`/`size`/
    `idx` number the transaction's operations from 1; `time` = the commit (last event's)
    second, UTC; `posttime` a few seconds later. `userid` 0 and `rowid` null: the binlog
    records neither. op `ins`/`upd`/`del` as the examples, `truncate` for a TRUNCATE
    (CHOICE: the doc lists TRUNCATE without its wire spelling). Partitions by primary key
    (a DTS option), keyless tables and TRUNCATE by table; no Kafka key."""
    _require_mysql(capture)
    rng = random.Random(seed)
    writer = PartitionWriter(topic, partitions)
    ops = {"INSERT": "ins", "UPDATE": "upd", "DELETE": "del", "TRUNCATE": "truncate"}
    for group in _transactions(capture.events):
        operations = _shareplex_operations(group)
        file_number, position = _binlog_position(group[0])
        commit_second = group[-1].ts
        post_second = commit_second + rng.randrange(1, 4)
        for seq, (event, change) in enumerate(operations, start=1):
            meta = {
                "time": _utc_text(commit_second), "userid": 0, "op": ops[event.op],
                "scn": str(file_number * 2**32 + position), "rowid": None,
                "trans": _transaction_id(group[0]) or f"{file_number}.{position}",
                "seq": seq, "size": len(operations), "table": f"{db}.{event.table}",
                "idx": f"{seq}/{len(operations)}", "posttime": _utc_text(post_second),
            }
            if change is None:
                partition = table_partition(event.db, event.table, partitions)
            else:
                partition = key_partition(_table(event), change.after or change.before, partitions)
            writer.send(partition, post_second * 1000, _dumps({"meta": meta} | _shareplex_body(event, change)))
    return writer.records


# ----------------------------------------------------------------------------- DTS Avro (§8 E1)

# MySQL type -> dataTypeNumber, the MySQL column type code (§8 E1) of the type itself, not
# of its binlog storage (the official demo's MysqlFieldConverter handles 7/10/11/12 and
# 247/248 but not TIMESTAMP2/DATETIME2/TIME2 17-19); all TEXT/BLOB sizes 252 as MySQL
# reports them.
_DTS_TYPE_NUMBERS = {
    "tinyint": 1, "smallint": 2, "int": 3, "integer": 3, "float": 4, "double": 5, "real": 5, "timestamp": 7,
    "bigint": 8, "mediumint": 9, "date": 10, "time": 11, "datetime": 12, "year": 13, "bit": 16,
    "varchar": 15, "varbinary": 15, "decimal": 246, "numeric": 246, "enum": 247, "set": 248,
    "tinytext": 252, "text": 252, "mediumtext": 252, "longtext": 252,
    "tinyblob": 252, "blob": 252, "mediumblob": 252, "longblob": 252, "char": 254, "binary": 254,
}
# Integer.precision: the type's decimal digits (information_schema NUMERIC_PRECISION), by
# (type, unsigned); a BIT's is its width. CHOICE: the schema only says "precision".
_DTS_INT_PRECISION = {("tinyint", False): 3, ("tinyint", True): 3, ("smallint", False): 5, ("smallint", True): 5,
                      ("mediumint", False): 7, ("mediumint", True): 8, ("int", False): 10, ("int", True): 10,
                      ("integer", False): 10, ("integer", True): 10, ("bigint", False): 19, ("bigint", True): 20}


def _dts_number_precision(t: MysqlType) -> tuple[int, int]:
    """(precision, scale) of a Decimal or Float: as declared, else MySQL's defaults (DECIMAL
    10,0; FLOAT 12 and DOUBLE 22 digits with scale 31, MySQL's "not fixed")."""
    if "," in t.args:
        return _precision(t) or 0, t.scale
    return {"decimal": (_precision(t) or 10, 0), "float": (12, 31), "double": (22, 31)}[_kind(t)]


def _dts_datetime(kind: str, value: Any) -> dict[str, int | None]:
    """A DateTime with only the parts its type has: DATE y/m/d, DATETIME all, YEAR the year,
    TIME h/m/s; `millis` holds MICROseconds (§8 E1). A negative TIME has every part negative
    (what the demo's TimeAdapter undoes)."""
    parts: dict[str, int | None] = dict.fromkeys(("year", "month", "day", "hour", "minute", "second", "millis"))
    if kind == "year":
        parts["year"] = value
    if kind in ("date", "datetime"):
        parts.update(year=value.year, month=value.month, day=value.day)
    if kind == "datetime":
        parts.update(hour=value.hour, minute=value.minute, second=value.second, millis=value.microsecond)
    if kind == "time":
        sign, hours, minutes, seconds, micros = _time_parts(value)
        parts.update(hour=sign * hours, minute=sign * minutes, second=sign * seconds, millis=sign * micros)
    return parts


def _dts_value(column: Column, value: Value) -> Any:
    """A value as its image union branch (§8 E1), per MySQL type as the official demo's
    MysqlFieldConverter reads them: integers and BIT Integer; DECIMAL Decimal; FLOAT/DOUBLE
    Float; CHAR/VARCHAR Character (BINARY/VARBINARY with charset "binary"); TEXT/BLOB
    BinaryObject (the demo reads type codes 249-252 as BinaryObject; type "TEXT"/"BLOB");
    ENUM, SET TextObject; TIMESTAMP Timestamp (epoch s + µs); DATE, TIME, DATETIME, YEAR
    DateTime. SQL NULL is Avro null (the SDK rejects EmptyObject NULL). CHOICE: text
    charset utf8mb4."""
    if value is None:
        return None
    t = mysql_type(column)
    kind = _kind(t)
    if kind in ("int", "bit"):
        precision = _precision(t) if kind == "bit" else _DTS_INT_PRECISION[(t.base, t.unsigned)]
        return dts_encoding.value("Integer", {"precision": precision, "value": str(value)})
    if kind in ("decimal", "float", "double"):
        precision, scale = _dts_number_precision(t)
        if isinstance(value, Decimal):
            return dts_encoding.value("Decimal", {"value": decimal_text(value, t.scale), "precision": precision,
                                                  "scale": scale})
        return dts_encoding.value("Float", {"value": float(value), "precision": precision, "scale": scale})
    if kind in ("char", "binary", "text", "blob"):
        data = binlog_bytes(t, value) if isinstance(value, bytes) else str(value).encode("utf-8")
        if kind in ("text", "blob"):
            return dts_encoding.value("BinaryObject", {"type": kind.upper(), "value": data})
        return dts_encoding.value("Character", {"charset": "binary" if kind == "binary" else "utf8mb4", "value": data})
    if kind in ("enum", "set"):
        return dts_encoding.value("TextObject", {"type": kind.upper(), "value": str(value)})
    if kind == "timestamp":
        seconds, micros = divmod(_epoch_micros(value), 1_000_000)
        return dts_encoding.value("Timestamp", {"timestamp": seconds, "millis": micros})
    return dts_encoding.value("DateTime", _dts_datetime(kind, value))


def _dts_object_name(db: str, table: str) -> str:
    """`db.table`, a dot inside a name written as the six characters \\u002E (§8 E1); a DDL
    that names no table has the database alone."""
    return ".".join(part.replace(".", "\\u002E") for part in (db, table) if part)


class _DtsStream:
    """The records of one DTS stream: `id` counts them, `sourcePosition` follows the log as
    "<position>@<file number>" (the third-party form in §8 E1), `bornTimestamp` is the
    source time in ms, `processTimestamps` null (CHOICE: the stages are not documented)."""

    def __init__(self, writer: PartitionWriter, rng: random.Random, server_version: str) -> None:
        self.writer = writer
        self.clock = _Clock(rng, 200, 900)
        self.server_version = server_version
        self.next_id = 1
        self.position = "0@0"

    def at(self, event: Event) -> str:
        file_number, position = _binlog_position(event)
        self.position = f"{position}@{file_number}"
        return self.position

    def send(self, partitions: list[int], operation: str, source_ts: int, *, safe_position: str | None = None,
             txid: str = "0", object_name: str | None = None, tags: dict[str, str] | None = None,
             fields: list[dict[str, Any]] | None = None, before: Any = None, after: Any = None) -> None:
        datum = {
            "version": 1, "id": self.next_id, "sourceTimestamp": source_ts, "sourcePosition": self.position,
            "safeSourcePosition": safe_position or self.position, "sourceTxid": txid,
            "source": {"sourceType": "MySQL", "version": self.server_version}, "operation": operation,
            "objectName": object_name, "processTimestamps": None, "tags": tags or {}, "fields": fields,
            "beforeImages": before, "afterImages": after, "bornTimestamp": source_ts * 1000,
        }
        self.next_id += 1
        value = base64.b64encode(dts_encoding.encode(datum)).decode("ascii")
        written_ms = self.clock.after(source_ts * 1000)
        for partition in partitions:
            self.writer.send(partition, written_ms, value, binary=True)


def _dts_txid(event: Event) -> str:
    """`sourceTxid`: the transaction's XID, "0" when it has none (§8 E1)."""
    return "0" if event.xid is None else str(event.xid)


def _dts_rows(stream: _DtsStream, group: list[Event], db: str) -> None:
    """One transaction: BEGIN, one record per row change, COMMIT, all with the transaction's
    `sourceTxid` (the XID) and `safeSourcePosition` (its first event: a restart there
    loses nothing). Rows partition by primary key (the DTS option "by primary key hash"),
    keyless tables by table; CHOICE: BEGIN and COMMIT, which name no table, to partition 0."""
    txid = _dts_txid(group[0])
    safe = stream.at(group[0])
    stream.send([0], "BEGIN", group[0].ts, safe_position=safe, txid=txid)
    for event in group:
        schema = _table(event)
        stream.at(event)
        fields = [{"name": c.name, "dataTypeNumber": _DTS_TYPE_NUMBERS[mysql_type(c).base]} for c in schema.columns]
        pk_uk_info = json.dumps({"PRIMARY": list(schema.pk)} if schema.pk else {}, separators=(",", ":"))
        for change in event.rows:
            images = [None if row is None else [_dts_value(c, row.get(c.name)) for c in schema.columns]
                      for row in (change.before, change.after)]
            partition = key_partition(schema, change.after or change.before, stream.writer.partitions)
            stream.send([partition], event.op, event.ts, safe_position=safe, txid=txid,
                        object_name=_dts_object_name(db, schema.name), tags={"pk_uk_info": pk_uk_info},
                        fields=fields, before=images[0], after=images[1])
    stream.at(group[-1])
    stream.send([0], "COMMIT", group[-1].ts, safe_position=safe, txid=txid)


def render_dts_avro(capture: Capture, db: str, topic: str, partitions: int = 3, seed: int = 0) -> list[Record]:
    """DTS Avro (§8 E1): one raw Avro datum of the 2020 `Record` schema per Kafka value.
    Row changes framed by BEGIN/COMMIT per transaction; every DDL (TRUNCATE included) a
    DDL record whose `afterImages` is the statement and `fields` null, partitioned by table;
    HEARTBEAT records (no object, no images) at the log position reached. No Kafka key.
    (DTS's default sends everything to partition 0; by-key partitioning is one of its
    options and the harder one for a consumer.)"""
    _require_mysql(capture)
    rng = random.Random(seed)
    writer = PartitionWriter(topic, partitions)
    stream = _DtsStream(writer, rng, capture.server_version)
    heartbeats = _Heartbeats(capture.events)
    everywhere = list(range(partitions))
    for group in _transactions(capture.events):
        for second in heartbeats.due(group[0].ts):
            stream.send(everywhere, "HEARTBEAT", second)
        if group[0].kind == "rows":
            _dts_rows(stream, group, db)
            continue
        event = group[0]
        stream.at(event)
        stream.send([table_partition(event.db, event.table, partitions)], "DDL", event.ts,
                    txid=_dts_txid(event),
                    object_name=_dts_object_name(db, event.table), after=_ddl_text(event, db))
    for second in heartbeats.closing():
        stream.send(everywhere, "HEARTBEAT", second)
    return writer.records


# ----------------------------------------------------------------------------- DRS Avro (§4 A5)


def _drs_image(schema: TableSchema, row: Row | None) -> list[dict[str, str | None] | None] | None:
    """Values as DRS JSON writes them (§4 A1, render_canal.drs_value_text): binary as Java's
    Arrays.toString(byte[]), TIMESTAMP as epoch seconds with the column's fraction,
    FLOAT/DOUBLE as Java prints them, DATETIME its wall clock, the rest as MySQL prints it."""
    if row is None:
        return None
    return [None if row.get(c.name) is None else {"value": drs_value_text(mysql_type(c), row.get(c.name), False)}
            for c in schema.columns]


def _drs_message(seqno: int, event: Event, db: str, change: RowChange | None) -> dict[str, Any]:
    """One DRS Avro Record with the reconstructed schema's fields. A row change: `fields`
    the columns with their bare MySQL type names (as DRS JSON's mysqlType), images
    positional, a NULL as a null element. A DDL (TRUNCATE included): operation DDL, no
    fields, the statement as the only after value (the schema's guess). CHOICE:
    version "1.0", shardId "0", eventid the seqno, `tableName` quoted ("db"."table", as
    Huawei's sample decoder strips quotes), updateTimestamp the source time in ms."""
    common = {"version": "1.0", "seqno": seqno, "shardId": "0", "eventid": str(seqno),
              "updateTimestamp": event.ts * 1000,
              "tableName": f'"{db}"."{event.table}"' if event.table else f'"{db}"'}
    if change is None:
        return common | {"operation": "DDL", "columnCount": 0, "fields": None, "beforeImages": None,
                         "afterImages": [{"value": _ddl_text(event, db)}]}
    schema = _table(event)
    return common | {"operation": event.op, "columnCount": len(schema.columns),
                     "fields": [{"name": c.name, "type": mysql_type(c).base} for c in schema.columns],
                     "beforeImages": _drs_image(schema, change.before), "afterImages": _drs_image(schema, change.after)}


def render_drs_avro(capture: Capture, db: str, topic: str, partitions: int = 3, seed: int = 0) -> list[Record]:
    """Huawei DRS Avro (§4 A5) with the project's RECONSTRUCTED writer schema
    (udfs/schemas/drs_avro/Record.reconstructed.avsc), Avro single-object encoding; one
    message per row change or DDL, `seqno` counting them from 1. Partitions by primary key
    (DRS's partitionHash), keyless tables and DDL by table; the Kafka key is the quoted
    table name (Huawei's sample decoder skips records without a key). No heartbeats: DRS
    documents none."""
    _require_mysql(capture)
    rng = random.Random(seed)
    writer = PartitionWriter(topic, partitions)
    schema = drs_schemas.load_schema(drs_schemas.DEFAULT_SCHEMA)
    clock = _Clock(rng, 200, 900)
    seqno = 0
    for event in capture.events:
        changes: list[RowChange | None] = list(event.rows) if event.kind == "rows" else [None]
        for change in changes:
            seqno += 1
            message = _drs_message(seqno, event, db, change)
            if change is None:
                partition = table_partition(event.db, event.table, partitions)
            else:
                partition = key_partition(_table(event), change.after or change.before, partitions)
            value = base64.b64encode(drs_encoding.encode(message, schema)).decode("ascii")
            writer.send(partition, clock.after(event.ts * 1000), value, key=message["tableName"], binary=True)
    return writer.records
