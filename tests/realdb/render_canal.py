"""A captured change log rendered into the Canal-family Kafka formats the way each vendor
writes them: Alibaba Canal FlatMessage, Alibaba DTS "Canal Json" (new and pre-2022-03-20
conventions), Huawei DRS JSON / JSON-C for a MySQL-family source and DRS JSON for a
PostgreSQL source.

The vendor is the authority, not our decoders: every encoding below cites the section of
../shared/FORMATS.md, the vendor document (vendor-docs/) or the vendor code it follows.
Where a vendor is silent the choice is marked "(silent: ...)" with the reason.

Common ground: the Kafka value is compact JSON text; the record timestamp is the producer's
clock (`ts`); no vendor here sets a record key (Canal sends `null`, CanalKafkaProducer;
DRS and DTS document none); rows go to the partition of their primary key
(delivery.key_partition, the row's after image, else its before image, so a key-changing
UPDATE goes to the new key's partition; a DDL, where the vendor does not say, goes to the
partition of its table, delivery.table_partition, where a keyless table's rows go too);
`db` replaces the captured database name.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Context, Decimal
from functools import cache
from typing import Any

from realdb.delivery import PartitionWriter, key_partition, table_partition
from realdb.model import Capture, Column, Event, Row, TableSchema, Value
from synth import Record

Message = dict[str, Any]
Image = dict[str, str | None]


# --- column types as the MySQL-family catalog gives them ------------------------------------

@dataclass(frozen=True)
class MysqlType:
    """A MariaDB COLUMN_TYPE split into what the renderers need."""

    text: str  # the full COLUMN_TYPE, e.g. "int(10) unsigned", "decimal(65,30)"
    base: str  # "int", "decimal", "enum", ...
    args: str  # what stands in the parentheses, "" if none
    unsigned: bool

    @property
    def scale(self) -> int:
        """DECIMAL(p,s) scale: the binlog value carries exactly s fraction digits."""
        parts = self.args.split(",")
        return int(parts[1]) if len(parts) > 1 else 0

    @property
    def fsp(self) -> int:
        """Fractional-second precision of DATETIME/TIMESTAMP/TIME (0 without parentheses)."""
        return int(self.args) if self.args.isdigit() else 0

    @property
    def labels(self) -> list[str]:
        """ENUM/SET members in definition order (COLUMN_TYPE doubles a quote inside a label)."""
        return [m.replace("''", "'") for m in re.findall(r"'((?:[^']|'')*)'", self.args)]


_TYPE_TEXT = re.compile(r"(?P<base>[a-z]+)(?:\((?P<args>.*)\))?(?P<attrs>(?: unsigned| zerofill)*)$")


def mysql_type(column: Column) -> MysqlType:
    """The column's type as every MySQL-family vendor here sees it in the catalog.

    MariaDB's JSON is an alias of LONGTEXT: information_schema and SHOW CREATE TABLE report
    "longtext" (the capture names it "json"), and Canal's table meta (desc / show create),
    DRS and DTS read that catalog, so they all see a LONGTEXT column."""
    return _mysql_type_of(column.type)


@cache  # the renderers ask for the type of every value they write: a few dozen type texts
def _mysql_type_of(column_type: str) -> MysqlType:
    text = "longtext" if column_type == "json" else column_type
    m = _TYPE_TEXT.match(text)
    if m is None:
        return MysqlType(text, text, "", False)
    return MysqlType(text, m["base"], m["args"] or "", "unsigned" in m["attrs"])


_TEXTS = {"tinytext", "text", "mediumtext", "longtext"}
_BLOBS = {"tinyblob", "blob", "mediumblob", "longblob"}
_GEOMETRIES = {"geometry", "point", "linestring", "polygon", "multipoint", "multilinestring",
               "multipolygon", "geometrycollection"}


# --- value text shared by the MySQL-family vendors -------------------------------------------

def _shortest_float32(value: float) -> Decimal:
    """The shortest decimal that reads back as the same IEEE single (the FLOAT column's
    value): what Java's Float.toString prints the digits of (JDK 19+ shortest algorithm)."""
    single = _to_float32(value)
    candidates = (f"{single:.{n}e}" for n in range(9))  # 9 significant digits always suffice
    return next(Decimal(c) for c in candidates if _to_float32(float(c)) == single)


def _to_float32(value: float) -> float:
    """The nearest IEEE single; infinity past the largest one (struct refuses those)."""
    try:
        return struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


def _java_fp_text(shortest: Decimal) -> str:
    """Java Float/Double.toString layout of the shortest digits: plain with at least one
    fraction digit for 1e-3 <= |x| < 1e7 ("1.5", "10357.0"), else computerized scientific
    ("1.2510357E7", "6.02214076E23", "1.0E-300") — FORMATS.md §9 (String.valueOf) and
    §4 A1 (the DRS sample's "10357.0", "1.2510357E7")."""
    if shortest == 0:
        return "-0.0" if shortest.is_signed() else "0.0"
    sign, digits, exponent = shortest.normalize().as_tuple()
    assert isinstance(exponent, int)
    magnitude = len(digits) - 1 + exponent
    if -3 <= magnitude < 7:
        plain = format(abs(shortest.normalize()), "f")
        return ("-" if sign else "") + (plain if "." in plain else plain + ".0")
    mantissa = "".join(map(str, digits))
    return f"{'-' if sign else ''}{mantissa[0]}.{mantissa[1:] or '0'}E{magnitude}"


def java_double_text(value: float) -> str:
    """Double.toString: Python's repr has the same shortest round-trip digits."""
    return _java_fp_text(Decimal(repr(value)))


def java_float_text(value: float) -> str:
    """Float.toString of the FLOAT column's single-precision value (the driver hands the
    capture a double parsed from text; the binlog holds the single)."""
    return _java_fp_text(_shortest_float32(value))


def decimal_text(value: Decimal, scale: int) -> str:
    """BigDecimal.toPlainString of the binlog value, which carries the column's scale
    (FORMATS.md §9: DECIMAL toPlainString; the Paimon sample "12345.110" for NUMERIC(8,3))."""
    exact = value.quantize(Decimal(1).scaleb(-scale), context=Context(prec=200))
    return format(exact, "f")


def fraction_text(microseconds: int, fsp: int) -> str:
    """The fraction as MySQL and Canal print it: exactly `fsp` digits, none when 0
    (RowsLogBuffer.usecondsToStr; the Paimon sample's DATETIME(2) "14:30:05.12")."""
    return "" if fsp == 0 else "." + f"{microseconds:06d}"[:fsp]


def mysql_datetime_text(value: dt.datetime, fsp: int) -> str:
    """"yyyy-MM-dd HH:mm:ss" + the column's fraction digits (FORMATS.md §9, the Paimon sample
    "2023-03-23 14:30:05.123456"; RowsLogBuffer DATETIME2/TIMESTAMP2)."""
    return (f"{value.year:04d}-{value.month:02d}-{value.day:02d} "
            f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}") + fraction_text(value.microsecond, fsp)


def mysql_time_text(value: dt.timedelta, fsp: int) -> str:
    """TIME as MySQL prints it: sign, hours of two or more digits ("-838:59:59"), and the
    column's fraction digits (RowsLogBuffer TIME2: "-" when negative, the hour in full when
    >= 100)."""
    total = value // dt.timedelta(microseconds=1)
    sign, total = ("-" if total < 0 else ""), abs(total)
    hours, rest = divmod(total, 3_600_000_000)
    minutes, rest = divmod(rest, 60_000_000)
    seconds, micros = divmod(rest, 1_000_000)
    return f"{sign}{hours:02d}:{minutes:02d}:{seconds:02d}" + fraction_text(micros, fsp)


def binlog_bytes(t: MysqlType, value: bytes) -> bytes:
    """The bytes the binlog holds: a fixed-length BINARY(n) value loses its trailing 0x00
    bytes (the server's Field_string::pack strips the binary charset's pad byte, Debezium
    DBZ-254 pads them back); VARBINARY and BLOB keep them. The DRS doc sample agrees: its
    BINARY column c11 reads "[]", an all-zero value."""
    return value.rstrip(b"\0") if t.base == "binary" else value


def enum_index(t: MysqlType, label: str) -> int:
    """ENUM as the binlog stores it: the 1-based member index, 0 for the '' error value
    (FORMATS.md §9: Canal sends the index, Paimon maps it back with mysqlType)."""
    return t.labels.index(label) + 1 if label in t.labels else 0


def set_bitmask(t: MysqlType, labels: str) -> int:
    """SET as the binlog stores it: bit i set for member i (FORMATS.md §9: "3" for a,b)."""
    chosen = set(labels.split(",")) if labels else set()
    return sum(1 << i for i, member in enumerate(t.labels) if member in chosen)


def mysql_value_text(t: MysqlType, value: Value, binary: Callable[[bytes], str],
                     timestamp: Callable[[dt.datetime, int], str]) -> str | None:
    """A MySQL-family value as text, with the vendor's choice for binary and TIMESTAMP.

    Integers as decimal text (the capture has the unsigned value; Canal fixes unsigned up,
    LogEventConvert), YEAR as four digits ("2023"; 0 is "0000" in RowsLogBuffer), BIT as
    its number, DATE "yyyy-MM-dd", text and JSON documents as they are; ENUM/SET labels
    stay labels here (Canal turns them into numbers before calling this)."""
    if value is None:
        return None
    if isinstance(value, bytes):
        return str(int.from_bytes(value, "big")) if t.base == "bit" else binary(binlog_bytes(t, value))
    if isinstance(value, int):
        return f"{value:04d}" if t.base == "year" else str(value)
    if isinstance(value, Decimal):
        return decimal_text(value, t.scale)
    if isinstance(value, float):
        return java_float_text(value) if t.base == "float" else java_double_text(value)
    if isinstance(value, dt.datetime):
        return timestamp(value, t.fsp) if t.base == "timestamp" else mysql_datetime_text(value, t.fsp)
    if isinstance(value, dt.date):
        return f"{value.year:04d}-{value.month:02d}-{value.day:02d}"
    if isinstance(value, dt.timedelta):
        return mysql_time_text(value, t.fsp)
    return str(value)


def latin1_text(value: bytes) -> str:
    """Canal: binary, BLOB and geometry as `new String(bytes, ISO-8859-1)` (FORMATS.md §9)."""
    return value.decode("latin-1")


def java_bytes_text(value: bytes) -> str:
    """DRS: Java Arrays.toString(byte[]) with signed bytes, "[]" when empty (FORMATS.md §4 A1)."""
    return "[" + ", ".join(str(b - 256 if b > 127 else b) for b in value) + "]"


# --- the parts every renderer shares -----------------------------------------------------------

class Clock:
    """The producer's wall clock (`ts`): a little after the log time, never going back.
    Canal: System.currentTimeMillis() at conversion (FORMATS.md §9); DRS: time written to
    Kafka (§4 A1); DTS: time DTS started writing (§8 E3)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.now = 0

    def after(self, es_ms: int) -> int:
        self.now = max(self.now + self.rng.randint(0, 2), es_ms + self.rng.randint(3, 400))
        return self.now

    def tick(self) -> int:
        """The next conversion of the same batch: the same or the next millisecond."""
        self.now += self.rng.randint(0, 1)
        return self.now


def image_of(event: Event, index: int) -> Row:
    """The image that places row `index` (and that Canal puts in `data`): the after image,
    the before image for a DELETE."""
    change = event.rows[index]
    image = change.after if change.after is not None else change.before
    assert image is not None, f"row change without images in event {event.seq}"
    return image


def partition_groups(event: Event, partitions: int) -> list[tuple[int, list[int]]]:
    """The event's row indexes per partition, partitions ascending: Canal's messagePartition
    hashes each row of `data` by its key and builds one message per partition (FORMATS.md
    §9), keeping the rows' order inside each."""
    assert event.schema is not None
    groups: dict[int, list[int]] = {}
    for i in range(len(event.rows)):
        groups.setdefault(key_partition(event.schema, image_of(event, i), partitions), []).append(i)
    return sorted(groups.items())


def present_columns(schema: TableSchema, row: Row) -> list[Column]:
    """The table's columns the row image holds, in table order (a MINIMAL image lacks some)."""
    return [c for c in schema.columns if c.name in row]


def with_db(sql: str, captured: str, db: str, quote: str = "`", parts_after: int = 1) -> str:
    """DDL text with the captured database name replaced where it qualifies a name
    (`shop`.`t`, shop.t; for PostgreSQL only db.schema.table, `parts_after` = 2)."""
    name = rf"(?:{quote}[^{quote}]+{quote}|\w+)"
    tail = r"\s*\.\s*" + r"\s*\.\s*".join([name] * (parts_after - 1)) + (r"\s*\." if parts_after > 1 else "")
    pattern = re.compile(rf"(?<![\w${quote}])({quote}?){re.escape(captured)}\1(?={tail})")
    return pattern.sub(lambda m: f"{m[1]}{db}{m[1]}", sql)


def compact_json(message: Message) -> str:
    """The Kafka value: compact JSON, non-ASCII as UTF-8, control characters as \\uXXXX
    (what fastjson and Gson write; cf. the Paimon sample's "\\u0000")."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


# --- Alibaba Canal FlatMessage (FORMATS.md §9) -----------------------------------------------

# java.sql.Types as Canal computes them (RowsLogBuffer then LogEventConvert): BLOB 2004 for
# binary, varbinary, blobs and geometry, CLOB 2005 for the TEXT family, YEAR VARCHAR.
_CANAL_SQL_TYPES = {
    "tinyint": -6, "smallint": 5, "mediumint": 4, "int": 4, "bigint": -5, "decimal": 3,
    "float": 7, "double": 8, "bit": -7, "date": 91, "datetime": 93, "timestamp": 93,
    "time": 92, "year": 12, "enum": 4, "set": -7, "char": 1, "varchar": 12,
    **{t: 2005 for t in _TEXTS}, **{t: 2004 for t in _BLOBS | _GEOMETRIES | {"binary", "varbinary"}},
}
# An UNSIGNED value above the signed range moves one type up (LogEventConvert.parseOneRow).
_UNSIGNED_WIDER = {"tinyint": (127, 5), "smallint": (32767, 4), "mediumint": (8388607, 4),
                   "int": (2147483647, -5), "bigint": (2**63 - 1, 3)}


def canal_sql_type(t: MysqlType, value: Value) -> int:
    """The column's sqlType for this value: Canal derives it per value (a NULL SET is BINARY
    turned BLOB, a big unsigned value a wider type) and the flat message keeps the last
    row's (MQMessageUtils.messageConverter puts it per row)."""
    if value is None and t.base == "set":
        return 2004
    if t.unsigned and t.base in _UNSIGNED_WIDER and isinstance(value, int):
        limit, wider = _UNSIGNED_WIDER[t.base]
        if value > limit:
            return wider
    return _CANAL_SQL_TYPES.get(t.base, 12)


def canal_value_text(t: MysqlType, value: Value) -> str | None:
    """FORMATS.md §9 value text: ENUM as its index, SET as its bitmask, binary as
    ISO-8859-1 text, TIMESTAMP in the Canal server's zone (UTC here) like DATETIME."""
    if isinstance(value, str) and t.base == "enum":
        return str(enum_index(t, value))
    if isinstance(value, str) and t.base == "set":
        return str(set_bitmask(t, value))
    return mysql_value_text(t, value, latin1_text, mysql_datetime_text)


def canal_image(schema: TableSchema, row: Row) -> Image:
    return {c.name: canal_value_text(mysql_type(c), row[c.name]) for c in present_columns(schema, row)}


def canal_old(befores: list[Image], afters: list[Image]) -> list[Image]:
    """`old` per row: the before values of the columns flagged `updated` — a value differs,
    NULL-safe (LogEventConvert.isUpdate) — where the flagged set accumulates over the rows
    of the event (MQMessageUtils' HashSet outside the row loop, FORMATS.md §9)."""
    updated: set[str] = set()
    old = []
    for before, after in zip(befores, afters, strict=True):
        updated |= {c for c, v in after.items() if c not in before or before[c] != v}
        old.append({c: v for c, v in before.items() if c in updated})
    return old


_CANAL_DDL_TYPES = [  # DruidDdlParser: the first statement item decides
    (r"create\s+(?:or\s+replace\s+)?(?:temporary\s+)?table\b", "CREATE"),
    (r"alter\s+table\s+\S+\s+rename\s+(?!column\b|index\b|key\b)", "RENAME"),
    (r"alter\s+table\s+\S+\s+add\s+(?:unique\s+|fulltext\s+|spatial\s+)?(?:index|key)\b", "CINDEX"),
    (r"alter\s+table\s+\S+\s+add\s+(?:constraint\s+\S+\s+)?unique\b", "CINDEX"),
    (r"alter\s+table\s+\S+\s+drop\s+(?:index|key)\b", "DINDEX"),
    (r"alter\s+table\b", "ALTER"),
    (r"drop\s+table\b", "ERASE"),
    (r"create\s+(?:unique\s+|fulltext\s+|spatial\s+)?index\b", "CINDEX"),
    (r"drop\s+index\b", "DINDEX"),
    (r"truncate\b", "TRUNCATE"),
    (r"rename\s+table\b", "RENAME"),
]


def canal_ddl_type(sql: str) -> str:
    """The EventType Canal gives a DDL query event (FORMATS.md §1 F1; anything it does not
    classify, e.g. CREATE DATABASE, is QUERY — still isDdl=true, LogEventConvert)."""
    text = re.sub(r"^\s*(?:/\*.*?\*/\s*)*", "", sql, flags=re.S).lower()
    return next((kind for pattern, kind in _CANAL_DDL_TYPES if re.match(pattern, text)), "QUERY")


def canal_batches(events: list[Event], rng: random.Random) -> Iterator[list[Event]]:
    """Canal's MQ loop fetches what the log holds since the last fetch (getWithoutAck, at
    most canal.mq.canalBatchSize entries) as one batch whose id every message shares
    (FORMATS.md §9); on a live workload that is a few consecutive events."""
    start = 0
    while start < len(events):
        size = rng.randint(1, 4)
        yield events[start:start + size]
        start += size


def _canal_message(event: Event, db: str, batch_id: int, ts: int, **fields: Any) -> Message:
    """FlatMessage fields in fastjson's alphabetical order, nulls written (WriteNulls).
    `gtid` is the GTID set Canal tracks in GTID mode (LogHeader.getGtidSetStr); for
    MariaDB's single domain that is the transaction's "domain-server-seq"."""
    message = {"data": None, "database": db, "es": event.ts * 1000, "gtid": event.gtid, "id": batch_id,
               "isDdl": False, "mysqlType": None, "old": None, "pkNames": None, "sql": "",
               "sqlType": None, "table": event.table, "ts": ts, "type": event.op}
    message.update(fields)
    return message


def canal_row_messages(event: Event, db: str, batch_id: int, ts: int,
                       partitions: int) -> list[tuple[int, Message]]:
    """One row event as FlatMessages: all its rows converted at once (pkNames, sqlType and the
    accumulated `old` over the whole event), then split by key hash into one message per
    partition (messageConverter, then messagePartition; FORMATS.md §9)."""
    schema = event.schema
    assert schema is not None
    images = [image_of(event, i) for i in range(len(event.rows))]
    columns = present_columns(schema, images[0])
    sql_type: dict[str, int] = {}
    for image in images:
        sql_type.update({c.name: canal_sql_type(mysql_type(c), image.get(c.name)) for c in columns})
    data = [canal_image(schema, image) for image in images]
    old = None
    if event.op == "UPDATE":
        old = canal_old([canal_image(schema, ch.before or {}) for ch in event.rows], data)
    # pkNames come from the key columns' isKey flags in column order; null without a key
    pk_names = [c.name for c in columns if c.name in schema.pk] or None
    return [(part, _canal_message(event, db, batch_id, ts, data=[data[i] for i in rows],
                                  old=None if old is None else [old[i] for i in rows],
                                  pkNames=pk_names, sqlType=sql_type,
                                  mysqlType={c.name: mysql_type(c).text for c in columns}))
            for part, rows in partition_groups(event, partitions)]


def canal_ddl_message(event: Event, db: str, batch_id: int, ts: int) -> Message:
    """A DDL (TRUNCATE included) as Canal sends it: its EventType, isDdl true, the statement
    in `sql`, no images or types (FORMATS.md §9)."""
    sql = with_db(event.sql or "", event.db, db)
    return _canal_message(event, db, batch_id, ts, isDdl=True, sql=sql, type=canal_ddl_type(sql))


def render_canal_json(capture: Capture, db: str, topic: str, partitions: int = 3, seed: int = 0) -> list[Record]:
    """Alibaba Canal FlatMessage (canal.mq.flatMessage=true, canal.mq.partitionHash by
    primary key): one message per row event and partition, `id` = the batch id, no
    transaction or heartbeat messages (FORMATS.md §9). A DDL goes to partition 0 like every
    isDdl message (messagePartition).

    Not rendered: MariaDB writes an Annotate_rows event before each statement's rows (on by
    default) and Canal asks for them, so a live Canal stream also carries a QUERY message
    (isDdl false, database "", `sql` = the DML text, data null; the canal#3179 sample) per
    statement; the capture holds no statement text for row events."""
    rng = random.Random(seed)
    clock = Clock(rng)
    writer = PartitionWriter(topic, partitions)
    for batch_id, batch in enumerate(canal_batches(capture.events, rng), start=1):
        # the whole batch is converted after its last entry was fetched
        ts = clock.after(max(e.ts for e in batch) * 1000)
        for event in batch:
            if event.kind == "ddl":
                parts = [(0, canal_ddl_message(event, db, batch_id, ts))]
            else:
                parts = canal_row_messages(event, db, batch_id, ts, partitions)
            for part, message in parts:
                writer.send(part, ts, compact_json(message))
            ts = clock.tick()
    return writer.records


# --- Alibaba DTS "Canal Json" (FORMATS.md §8 E3, vendor-docs/alibaba-dts-kafka-formats.ja.txt) -

_PRECISION_TYPES = {"decimal", "float", "double", "datetime", "timestamp", "time"}


def dts_mysql_type(t: MysqlType) -> str:
    """The doc: mysqlType "does not support parameters such as precision", yet its example
    shows "bigint(20)" and "varchar(50)". (silent: read as dropping precision/scale and
    fractional-second parameters only: "decimal", "datetime"; lengths, display widths, ENUM
    members and unsigned stay.)"""
    if t.base not in _PRECISION_TYPES:
        return t.text
    return t.base + (" unsigned" if t.unsigned else "")


def dts_value_text(t: MysqlType, value: Value) -> str | None:
    """As Canal (DTS promises Canal compatibility) except ENUM and SET, which stay labels
    (silent: DTS records carry them as TextObject text, FORMATS.md §8 E1; nothing says DTS
    turns them back into numbers). Binary as ISO-8859-1 text (silent: the doc does not say,
    §8 E3; Canal's convention)."""
    return mysql_value_text(t, value, latin1_text, mysql_datetime_text)


def _dts_message(event: Event, db: str, offset: int, ts: int, **fields: Any) -> Message:
    """Alphabetical keys as in the doc's examples; a null field is left out (the new-style
    DELETE example has no `old`, the old-style one no `data`, the DDL example neither, nor
    `gtid`); column NULLs inside images stay ("shipping_type": null)."""
    message = {"data": None, "database": db, "es": event.ts * 1000, "gtid": event.gtid, "id": offset,
               "isDdl": False, "mysqlType": None, "old": None, "pkNames": None, "sql": "",
               "sqlType": None, "table": event.table, "ts": ts, "type": event.op}
    message.update(fields)
    return {k: v for k, v in message.items() if v is not None}


def _dts_images(event: Event, index: int, legacy: bool) -> tuple[Row | None, Row | None]:
    """(`data`, `old`) row images. New style: as Canal, but `old` is the full before image
    (silent for new instances; the doc says "all columns by default" and DTS records hold
    full images). Pre-2022-03-20: UPDATE `data` = before, `old` = after; DELETE row in `old`
    (FORMATS.md §8 E3)."""
    change = event.rows[index]
    if event.op == "INSERT":
        return change.after, None
    if event.op == "DELETE":
        return (None, change.before) if legacy else (change.before, None)
    return (change.before, change.after) if legacy else (change.after, change.before)


def dts_row_message(event: Event, index: int, db: str, offset: int, ts: int, legacy: bool) -> Message:
    """One row change as one message (silent: DTS records are per row, FORMATS.md §8 E1, and
    `id` is the record's cache offset, so one row per message). sqlType as Canal's code for
    the column type, not per value (silent: the doc only shows bigint -5, varchar 12)."""
    schema = event.schema
    assert schema is not None
    data, old = _dts_images(event, index, legacy)
    columns = present_columns(schema, image_of(event, index))

    def image(row: Row | None) -> list[Image] | None:
        if row is None:
            return None
        return [{c.name: dts_value_text(mysql_type(c), row[c.name]) for c in present_columns(schema, row)}]

    return _dts_message(event, db, offset, ts, data=image(data), old=image(old),
                        pkNames=list(schema.pk) or None,
                        mysqlType={c.name: dts_mysql_type(mysql_type(c)) for c in columns},
                        sqlType={c.name: _CANAL_SQL_TYPES.get(mysql_type(c).base, 12) for c in columns})


def _render_dts(capture: Capture, db: str, topic: str, partitions: int, seed: int, legacy: bool) -> list[Record]:
    """DTS to Kafka with the partition policy "by primary key hash" (silent: the doc does
    not say where a DDL goes)."""
    rng = random.Random(seed)
    clock = Clock(rng)
    writer = PartitionWriter(topic, partitions)
    offset = rng.randint(1, 10_000)
    for event in capture.events:
        if event.kind == "ddl":
            ts = clock.after(event.ts * 1000)
            sql = with_db(event.sql or "", event.db, db)
            writer.send(table_partition(event.db, event.table, partitions), ts,
                        compact_json(_dts_message(event, db, offset, ts, isDdl=True, sql=sql, type="DDL")))
            offset += 1
            continue
        assert event.schema is not None
        for i in range(len(event.rows)):
            ts = clock.after(event.ts * 1000)
            message = dts_row_message(event, i, db, offset, ts, legacy)
            writer.send(key_partition(event.schema, image_of(event, i), partitions), ts, compact_json(message))
            offset += 1
    return writer.records


def render_canal_json_dts(capture: Capture, db: str, topic: str, partitions: int = 3, seed: int = 0) -> list[Record]:
    """DTS "Canal Json" of instances created or restarted since 2022-03-20 (format id
    canal_json): Canal's keys plus `gtid`, `id` = DTS cache offset, DDL as type "DDL"."""
    return _render_dts(capture, db, topic, partitions, seed, legacy=False)


def render_canal_json_legacy(capture: Capture, db: str, topic: str, partitions: int = 3,
                             seed: int = 0) -> list[Record]:
    """DTS "Canal Json" of instances created before 2022-03-20: UPDATE `data` = before,
    `old` = after (all columns), DELETE row in `old` and no `data`."""
    return _render_dts(capture, db, topic, partitions, seed, legacy=True)


# --- Huawei DRS JSON and JSON-C, MySQL-family source (FORMATS.md §4 A1, A2) -------------------

# DRS "jdbc types" (FORMATS.md §4 A1): the doc sample gives int 4, decimal 3, float 6,
# double 8, datetime 94, timestamp 93, char 1, varchar 12, text -1, binary -2, varbinary -3,
# blob 2004. (silent for the rest: the JDBC code of the type, families as in the sample.)
_DRS_SQL_TYPES = {
    "int": 4, "decimal": 3, "float": 6, "double": 8, "datetime": 94, "timestamp": 93, "char": 1,
    "varchar": 12, "text": -1, "binary": -2, "varbinary": -3, "blob": 2004,
    "tinyint": -6, "smallint": 5, "mediumint": 4, "bigint": -5, "bit": -7, "date": 91, "time": 92,
    "year": 91, "enum": 1, "set": 1, "tinytext": -1, "mediumtext": -1, "longtext": -1,
    "tinyblob": 2004, "mediumblob": 2004, "longblob": 2004,
}


def java_string_hash(text: str) -> int:
    """String.hashCode over UTF-16 code units, as an unsigned 32-bit number."""
    units = text.encode("utf-16-be")
    h = 0
    for i in range(0, len(units), 2):
        h = (31 * h + int.from_bytes(units[i:i + 2], "big")) & 0xFFFFFFFF
    return h


def java_hash_map(entries: dict[str, Any]) -> dict[str, Any]:
    """`entries` in the iteration order of a java.util.HashMap filled in this order: bucket
    (spread hash masked by the capacity, 16 doubled while over 3/4 full), then insertion.
    DRS's maps are HashMaps: this reproduces both vendor samples' column order (the MySQL
    one's "c11, c10, c13, c12, c14, c1, ..., id" with 15 columns in 32 buckets)."""
    capacity = 16
    while len(entries) > capacity * 3 // 4:
        capacity *= 2

    def bucket(name: str) -> int:
        h = java_string_hash(name)
        return (h ^ (h >> 16)) & (capacity - 1)

    return {name: entries[name] for name in sorted(entries, key=bucket)}


_GSON_HTML_SAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "=": "\\u003d", "'": "\\u0027",
                   "\u2028": "\\u2028", "\u2029": "\\u2029"}


def gson_json(message: Message) -> str:
    """Gson with serializeNulls and its default HTML-safe escaping of < > & = ' (the doc's
    table 6, FORMATS.md §4 A1) and of U+2028/U+2029; these characters only occur inside
    JSON strings, so replacing them in the text is exact."""
    text = compact_json(message)
    return re.sub("[<>&='\u2028\u2029]", lambda m: _GSON_HTML_SAFE[m[0]], text)


def drs_timestamp_text(value: dt.datetime, fsp: int) -> str:
    """DRS JSON TIMESTAMP: epoch seconds, then the column's fraction digits — the doc's
    "1624614713.201" (FORMATS.md §3.5). (silent on the digits: a seconds.fraction pair is
    how the binlog holds TIMESTAMP2 and how mysqlbinlog prints it, with the column's
    precision, which yields the doc's value for TIMESTAMP(3).)"""
    seconds = (value - dt.datetime(1970, 1, 1)) // dt.timedelta(seconds=1)
    return str(seconds) + fraction_text(value.microsecond, fsp)


def drs_value_text(t: MysqlType, value: Value, json_c: bool) -> str | None:
    """DRS value text (FORMATS.md §4 A1/A2): binary as Arrays.toString, FLOAT/DOUBLE as
    Java prints them (FLOAT from its single value, silent: the sample's "10357.0" fits
    both), DATETIME as written with the column's fraction digits (silent beyond the
    sample's DATETIME(0)), TIMESTAMP epoch text (JSON) or "yyyy-mm-dd hh:mm:ss" (JSON-C, the
    doc's last section) in the source zone, UTC here, with the column's fraction digits
    (silent). ENUM and SET as labels and BIT as its number (silent: the bare "enum"
    mysqlType lists no members to read an index with)."""
    timestamp = mysql_datetime_text if json_c else drs_timestamp_text
    return mysql_value_text(t, value, java_bytes_text, timestamp)


def drs_mysql_message(event: Event, db: str, seq: int, ts: int, json_c: bool,
                      rows: list[int] | None) -> Message:
    """A DRS JSON (JSON-C) message, keys in the sample's order. UPDATE: `old` = the full
    before image (the sample); DELETE: the row in `old` (JSON) or `data` (JSON-C); a DDL
    (TRUNCATE too) is type "DDL" with the statement (the doc's table 2)."""
    message: Message = {"mysqlType": None, "id": seq, "es": event.ts * 1000, "ts": ts, "database": db,
                        "table": event.table, "type": event.op, "isDdl": False, "sql": "", "sqlType": None,
                        "data": None, "old": None, "pkNames": None}
    if rows is None:
        message.update(type="DDL", isDdl=True, sql=with_db(event.sql or "", event.db, db))
        return message
    schema = event.schema
    assert schema is not None
    columns = present_columns(schema, image_of(event, rows[0]))

    def images(pick: Callable[[int], Row | None]) -> list[Image]:
        out = []
        for i in rows:
            row = pick(i) or {}
            out.append(java_hash_map({c.name: drs_value_text(mysql_type(c), row[c.name], json_c)
                                      for c in present_columns(schema, row)}))
        return out

    after, before = images(lambda i: event.rows[i].after), images(lambda i: event.rows[i].before)
    if event.op == "INSERT":
        message["data"] = after
    elif event.op == "UPDATE":
        message.update(data=after, old=before)
    else:
        message["data" if json_c else "old"] = before
    message.update(mysqlType=java_hash_map({c.name: mysql_type(c).base for c in columns}),
                   sqlType=java_hash_map({c.name: _DRS_SQL_TYPES.get(mysql_type(c).base, 1111) for c in columns}),
                   pkNames=list(schema.pk) or None)
    return message


class DrsSequence:
    """The DRS `id`: "the sequence number of the event operation, monotonically increasing"
    (the doc's table 2). (silent on the step: DRS numbers events it does not send, e.g.
    transaction boundaries, so it advances by 1-3.)"""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.value = rng.randint(1_000, 30_000)

    def next(self) -> int:
        self.value += self.rng.randint(1, 3)
        return self.value


def _render_drs_mysql(capture: Capture, db: str, topic: str, partitions: int, seed: int,
                      json_c: bool) -> list[Record]:
    """One message per row event and partition, like Canal (partition policy "by primary key
    hash"; silent: the doc neither says whether `data` may hold several rows nor where a DDL
    goes). DRS sends no heartbeat or checkpoint messages in JSON (none in the doc)."""
    rng = random.Random(seed)
    clock, sequence = Clock(rng), DrsSequence(rng)
    writer = PartitionWriter(topic, partitions)
    for event in capture.events:
        seq, ts = sequence.next(), clock.after(event.ts * 1000)
        if event.kind == "ddl":
            message = drs_mysql_message(event, db, seq, ts, json_c, None)
            writer.send(table_partition(event.db, event.table, partitions), ts, gson_json(message))
            continue
        for part, rows in partition_groups(event, partitions):
            writer.send(part, ts, gson_json(drs_mysql_message(event, db, seq, ts, json_c, rows)))
    return writer.records


def render_drs_json(capture: Capture, db: str, topic: str, partitions: int = 3, seed: int = 0) -> list[Record]:
    """Huawei DRS JSON for MySQL/MariaDB (FORMATS.md §4 A1)."""
    return _render_drs_mysql(capture, db, topic, partitions, seed, json_c=False)


def render_drs_json_c(capture: Capture, db: str, topic: str, partitions: int = 3, seed: int = 0) -> list[Record]:
    """Huawei DRS JSON-C (FORMATS.md §4 A2): DELETE row in `data`, TIMESTAMP as text."""
    return _render_drs_mysql(capture, db, topic, partitions, seed, json_c=True)


# --- Huawei DRS JSON, PostgreSQL source (FORMATS.md §4 A4, the doc's table 4) ------------------

# DRS PostgreSQL-family sqlType codes (not JDBC). The doc's sample gives smallint 2, boolean 8,
# character 9, bytea 15, timestamp 16, bit 20, json 22, int4range 42, tstzrange 46.
# (silent for the rest: numbered in the same order around them; 0 for types not listed.)
_DRS_PG_SQL_TYPES = {
    "smallint": 2, "integer": 3, "bigint": 4, "real": 5, "double precision": 6, "numeric": 7,
    "boolean": 8, "character": 9, "character varying": 10, "text": 11, "date": 12,
    "time without time zone": 13, "time with time zone": 14, "bytea": 15,
    "timestamp without time zone": 16, "timestamp with time zone": 17, "interval": 18, "uuid": 19,
    "bit": 20, "bit varying": 21, "json": 22, "xml": 23, "int4range": 42, "int8range": 43,
    "numrange": 44, "tsrange": 45, "tstzrange": 46, "daterange": 47,
}


def pg_column_type(type_text: str) -> str:
    """columnType: the type "without length or precision" (the doc's table 4):
    "numeric(38,10)" -> "numeric", "timestamp(6) without time zone" -> "timestamp without
    time zone". jsonb is reported "json": the sample's jsonb_column is typed "json" and
    holds jsonb's normalised text ({"key1": "value1", ...})."""
    bare = re.sub(r"\(\d+(?:,\d+)?\)", "", type_text)
    return "json" if bare == "jsonb" else bare


def pg_float_text(value: float, single: bool) -> str:
    """PostgreSQL float4/float8 output (shortest digits, exponent form below 1e-4 or from
    1e6 / 1e15 on: "1e+15", "6.02214076e+23"), the text logical decoding hands DRS.
    (silent: no float in the doc's sample.)"""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    shortest = (_shortest_float32(value) if single else Decimal(repr(value))).normalize()
    if shortest == 0:
        return "-0" if shortest.is_signed() else "0"
    sign, digits, exponent = shortest.as_tuple()
    assert isinstance(exponent, int)
    magnitude = len(digits) - 1 + exponent
    if -4 <= magnitude < (6 if single else 15):
        return format(shortest, "f")
    mantissa = "".join(map(str, digits))
    fraction = "." + mantissa[1:] if len(mantissa) > 1 else ""
    return f"{'-' if sign else ''}{mantissa[0]}{fraction}e{'-' if magnitude < 0 else '+'}{abs(magnitude):02d}"


def pg_fraction(microseconds: int) -> str:
    """PostgreSQL prints a fraction without trailing zeros (the sample's "06:14:00.742")."""
    return ("." + f"{microseconds:06d}".rstrip("0")) if microseconds else ""


def pg_value_text(type_text: str, value: Value) -> str | None:
    """PostgreSQL text output as in the doc's sample: boolean "true"/"false", bytea as lower
    hex without "\\x", timestamps with the stored fraction; numeric with its scale; other
    types as the driver gives their text. timestamptz in UTC with "+00" (silent: the sample
    has only timestamp without time zone)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, float):
        return pg_float_text(value, single=type_text == "real")
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC).replace(tzinfo=None)
        zone = "+00" if "with time zone" in type_text else ""
        return mysql_datetime_text(value, 0) + pg_fraction(value.microsecond) + zone
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return mysql_time_text(value, 0) + pg_fraction(value // dt.timedelta(microseconds=1) % 1_000_000)
    return str(value)


def previous_commit_ms(events: list[Event]) -> list[int]:
    """`es` per event: for PostgreSQL "the commit time of the previous transaction" (the
    doc's table 4), in whole seconds as in the sample ("1639626187000"). The first
    transaction of the capture gets its own commit time (silent: its predecessor is
    outside the capture)."""
    out: list[int] = []
    current: tuple[int | None, int] | None = None
    previous = 0
    for event in events:
        commit = (event.ts_us // 1_000_000 if event.ts_us else event.ts) * 1000
        if current is None or event.xid != current[0]:
            previous = current[1] if current is not None else commit
            current = (event.xid, commit)
        out.append(previous)
    return out


def drs_pg_message(event: Event, db: str, seq: int, es: int, ts: int, rows: list[int] | None) -> Message:
    """A DRS JSON message for a PostgreSQL source, keys in the doc sample's order:
    `columnType`, `dbType`, `schema`, `opType` (= `type`) before the MySQL keys, maps in
    HashMap order, `old` = full before image on UPDATE and the deleted row on DELETE,
    `pkNames` null without a key (the sample's null)."""
    schema = event.schema
    message: Message = {"columnType": None, "dbType": "PostgreSQL", "schema": schema.schema if schema else None,
                        "opType": event.op, "id": seq, "es": es, "ts": ts, "database": db, "table": event.table,
                        "type": event.op, "isDdl": False, "sql": "", "sqlType": None, "data": None, "old": None,
                        "pkNames": None}
    if rows is None:
        sql = with_db(event.sql or "", event.db, db, quote='"', parts_after=2)
        message.update(opType="DDL", type="DDL", isDdl=True, sql=sql)
        return message
    assert schema is not None
    columns = present_columns(schema, image_of(event, rows[0]))

    def images(pick: Callable[[int], Row | None]) -> list[Image] | None:
        picked = [pick(i) for i in rows]
        if any(row is None for row in picked):
            return None
        return [java_hash_map({c.name: pg_value_text(c.type, row[c.name]) for c in present_columns(schema, row)})
                for row in picked if row is not None]

    message.update(columnType=java_hash_map({c.name: pg_column_type(c.type) for c in columns}),
                   sqlType=java_hash_map({c.name: _DRS_PG_SQL_TYPES.get(pg_column_type(c.type), 0) for c in columns}),
                   data=images(lambda i: event.rows[i].after) if event.op != "DELETE" else None,
                   old=images(lambda i: event.rows[i].before), pkNames=list(schema.pk) or None)
    return message


def render_drs_json_postgres(capture: Capture, db: str, topic: str, partitions: int = 3,
                             seed: int = 0) -> list[Record]:
    """Huawei DRS JSON for a PostgreSQL source (FORMATS.md §4 A4), partitioned like the
    MySQL flavour."""
    rng = random.Random(seed)
    clock, sequence = Clock(rng), DrsSequence(rng)
    writer = PartitionWriter(topic, partitions)
    for event, es in zip(capture.events, previous_commit_ms(capture.events), strict=True):
        seq, ts = sequence.next(), clock.after((event.ts_us // 1000) if event.ts_us else event.ts * 1000)
        if event.kind == "ddl":
            message = drs_pg_message(event, db, seq, es, ts, None)
            writer.send(table_partition(event.db, event.table, partitions), ts, gson_json(message))
            continue
        for part, rows in partition_groups(event, partitions):
            writer.send(part, ts, gson_json(drs_pg_message(event, db, seq, es, ts, rows)))
    return writer.records
