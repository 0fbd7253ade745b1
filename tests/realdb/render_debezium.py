"""A captured change log (realdb.model) rendered as Debezium 2.7 and Huawei MRS CDL write it
to Kafka, so that the decoders meet the vendors' real streams (FORMATS.md §5 B1/B2, §10 F2).

Debezium facts below were read in the Debezium source at tag v2.7.4.Final (the classes are
named where used) and in Kafka's JsonConverter; CDL facts come from the MRS page "CDL JSON和开源
Debezium JSON数据格式介绍" (vendor-docs/huawei-cdl-json-debezium.zh.txt) and its two examples
(vectors/huawei_cdl). Where a vendor is silent the choice is marked "Silent:".

Every renderer returns the records of all topics it writes (data, schema-change, heartbeat) in
the order the connector produces them, each topic with its own broker offsets.
"""

from __future__ import annotations

import base64
import datetime as dt
import math
import random
import re
import struct
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from realdb.delivery import PartitionWriter, key_partition, table_partition
from realdb.model import Capture, Column, Event, Row, RowChange, TableSchema, Value
from synth import Record

DEBEZIUM_VERSION = "2.7.4.Final"
CDL_DEBEZIUM_VERSION = "1.4.0.Final"  # source.version in the CDL 2.0 example
_EPOCH = dt.datetime(1970, 1, 1)
_EPOCH_DAY = dt.date(1970, 1, 1).toordinal()

# ---------------------------------------------------------------------------------------------
# JSON as Kafka's JsonConverter writes it (Jackson ObjectMapper: compact, UTF-8, bytes as
# base64, floats by Float.toString / Double.toString, non-finite numbers quoted).


@dataclass(frozen=True)
class Float32:
    """A FLOAT32 Connect value: Jackson writes it with Float.toString, not Double.toString."""

    value: float


def dumps(value: Any) -> str:
    """JSON text exactly as JsonConverter serializes a JsonNode tree (no spaces; Python's json
    module would print 6.02214076e+23 where Jackson prints 6.02214076E23)."""
    if isinstance(value, str):  # the most common value first: the renderers call this millions of times
        return _quote(value)
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, Float32):
        return _java_number(value.value, single=True)
    if isinstance(value, float):
        return _java_number(value, single=False)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, bytes):
        return _quote(base64.b64encode(value).decode("ascii"))
    if isinstance(value, dict):
        return "{" + ",".join(f"{_quote(k)}:{dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    raise TypeError(f"not a JSON value: {value!r}")


_NAMED_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
_TO_ESCAPE = re.compile(r'["\\\x00-\x1f]')


def _escape(m: re.Match[str]) -> str:
    ch = m.group(0)
    return _NAMED_ESCAPES.get(ch) or f"\\u{ord(ch):04X}"


def _quote(text: str) -> str:
    """Jackson's escaping: the named escapes, other control characters as \\u00XX (upper-case
    hex), everything else (non-ASCII included) written as is."""
    if _TO_ESCAPE.search(text) is None:
        return '"' + text + '"'
    return '"' + _TO_ESCAPE.sub(_escape, text) + '"'


def _java_number(x: float, single: bool) -> str:
    """Java's Float.toString / Double.toString: the shortest digits that read back to the same
    value, but never a single digit when two are closer (4.9E-324, not 5.0E-324: JDK 19+
    javadoc; older JDKs occasionally print one digit more), plain notation for
    1e-3 <= |x| < 1e7 with at least one fraction digit, else d.dddE<n>. Jackson quotes NaN and
    the infinities (JsonGenerator QUOTE_NON_NUMERIC_NUMBERS, on by default)."""
    if math.isnan(x):
        return '"NaN"'
    if math.isinf(x):
        return '"Infinity"' if x > 0 else '"-Infinity"'
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    digits, exponent = _shortest_digits(x, single)  # x = 0.d1d2... * 10**exponent
    sign = "-" if x < 0 else ""
    if -3 < exponent <= 7:
        if exponent <= 0:
            return f"{sign}0.{'0' * -exponent}{digits}"
        whole, frac = digits[:exponent].ljust(exponent, "0"), digits[exponent:]
        return f"{sign}{whole}.{frac or '0'}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent - 1}"


def _shortest_digits(x: float, single: bool) -> tuple[str, int]:
    """Significant digits (no trailing zeros) and decimal exponent of the shortest decimal
    that rounds back to x (as a float32 when `single`), or of the closest two-digit one when
    the shortest has one digit."""
    narrow = _f32 if single else float
    target = narrow(x)
    if single:
        text = next(t for t in (f"{target:.{p}e}" for p in range(9)) if narrow(float(t)) == target)
    else:
        text = repr(target)  # Python's repr is the shortest round-tripping decimal
    if "." not in text.partition("e")[0] and narrow(float(f"{target:.1e}")) == target:
        text = f"{target:.1e}"
    mantissa, _, exp = f"{Decimal(text):e}".partition("e")
    digits = mantissa.lstrip("-").replace(".", "").rstrip("0") or "0"
    return digits, int(exp) + 1


def _f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


# ---------------------------------------------------------------------------------------------
# Kafka Connect schemas as JsonConverter.asJsonSchema prints them: type, fields/items, optional,
# name, version, doc, parameters, default; a struct member adds "field" last.


def connect_schema(type_: str, optional: bool, *, name: str | None = None, version: int | None = None,
                   doc: str | None = None, parameters: dict[str, str] | None = None, default: Any = None,
                   fields: list[dict[str, Any]] | None = None, items: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": type_}
    if fields is not None:
        out["fields"] = fields
    if items is not None:
        out["items"] = items
    out["optional"] = optional
    for key, val in (("name", name), ("version", version), ("doc", doc), ("parameters", parameters),
                     ("default", default)):
        if val is not None:
            out[key] = val
    return out


def member(field: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {**schema, "field": field}


def plain(type_: str, optional: bool) -> dict[str, Any]:
    return connect_schema(type_, optional)


# ---------------------------------------------------------------------------------------------
# Column types: the Connect schema Debezium derives for a column and the value conversion.


@dataclass(frozen=True)
class ColumnType:
    """How one column is rendered: `spec` is its Connect schema less `optional`; `encode` turns
    a driver value into the Connect value; `fallback` is what JdbcValueConverters.convertValue
    puts for a missing value of a NOT NULL column (e.g. the unsent columns of a PostgreSQL
    REPLICA IDENTITY DEFAULT delete)."""

    spec: dict[str, Any]
    encode: Callable[[Any], Any]
    fallback: Any

    def schema(self, column: Column) -> dict[str, Any]:
        return connect_schema(optional=column.nullable, **self.spec)

    def value(self, column: Column, value: Value) -> Any:
        if value is None:
            return None if column.nullable else self.fallback
        return self.encode(value)


def _spec(type_: str, name: str | None = None, version: int | None = None, **extra: Any) -> dict[str, Any]:
    return {"type_": type_, "name": name, "version": version, **extra}


def _integer(type_: str) -> ColumnType:
    return ColumnType(_spec(type_), int, 0)


def _float(single: bool) -> ColumnType:
    if single:
        return ColumnType(_spec("float"), lambda v: Float32(float(v)), Float32(0.0))
    return ColumnType(_spec("double"), float, 0.0)


def java_big_integer_bytes(n: int) -> bytes:
    """BigInteger.toByteArray(): the minimal big-endian two's complement (one sign bit)."""
    bit_length = n.bit_length() if n >= 0 else (~n).bit_length()
    return n.to_bytes(bit_length // 8 + 1, "big", signed=True)


def _unscaled(value: Decimal, scale: int) -> int:
    """The unscaled integer of `value` at `scale`, exactly (no 28-digit Decimal context);
    Debezium's BigDecimal.setScale without rounding fails the same way on excess digits."""
    sign, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int):
        raise ValueError(f"{value} has no exact value; decimal.handling.mode=precise fails on it")
    magnitude = int("".join(map(str, digits)) or "0")
    shift = exponent + scale
    if shift < 0:
        magnitude, rest = divmod(magnitude, 10 ** -shift)
        if rest:
            raise ValueError(f"{value} has more than {scale} fraction digits")
    else:
        magnitude *= 10 ** shift
    return -magnitude if sign else magnitude


def connect_decimal(precision: int, scale: int) -> ColumnType:
    """decimal.handling.mode=precise: Connect Decimal, bytes of the unscaled value, with
    `scale` and `connect.decimal.precision` parameters (SpecialValueDecimal.builder)."""
    spec = _spec("bytes", "org.apache.kafka.connect.data.Decimal", 1,
                 parameters={"scale": str(scale), "connect.decimal.precision": str(precision)})
    return ColumnType(spec, lambda v: java_big_integer_bytes(_unscaled(Decimal(v), scale)), bytes(1))


def variable_scale_decimal(value: Decimal) -> dict[str, Any]:
    """io.debezium.data.VariableScaleDecimal: trailing zeros stripped, scale never negative
    (PostgresValueConverter.convertDecimal), then {scale, value bytes}."""
    sign, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int):
        raise ValueError(f"{value} has no exact value; decimal.handling.mode=precise fails on it")
    unscaled, scale = int("".join(map(str, digits)) or "0"), -exponent
    while scale > 0 and unscaled % 10 == 0:
        unscaled, scale = unscaled // 10, scale - 1
    if scale < 0:
        unscaled, scale = unscaled * 10 ** -scale, 0
    return {"scale": scale, "value": java_big_integer_bytes(-unscaled if sign else unscaled)}


def epoch_micros(value: dt.datetime) -> int:
    """Microseconds since 1970-01-01 of a UTC wall clock (aware values converted to UTC)."""
    if value.tzinfo is not None:
        value = value.astimezone(dt.UTC).replace(tzinfo=None)
    delta = value - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def epoch_days(value: dt.date) -> int:
    """LocalDate.toEpochDay (proleptic Gregorian): 1000-01-01 is -354285, 9999-12-31 2932896."""
    return value.toordinal() - _EPOCH_DAY


def duration_micros(value: dt.timedelta | dt.time) -> int:
    """A TIME as a Duration in µs (MySQL TIME may be negative or over 24 h)."""
    if isinstance(value, dt.time):
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond
    return (value.days * 86_400 + value.seconds) * 1_000_000 + value.microseconds


def zoned_timestamp(value: dt.datetime, width: int | None) -> str:
    """ZonedTimestamp.toIsoString in UTC: with a fraction width 1-9 exactly that many digits
    (the column's precision, zeros kept); otherwise ISO_OFFSET_DATE_TIME, which prints the
    fraction only when non-zero and without trailing zeros."""
    micros = epoch_micros(value)
    seconds, fraction = divmod(micros, 1_000_000)
    moment = _EPOCH + dt.timedelta(seconds=seconds)
    text = f"{moment.date().isoformat()}T{moment:%H:%M:%S}"
    if width is not None and 1 <= width <= 9:
        text += "." + f"{fraction:06d}{'0' * 3}"[:width]
    elif fraction:
        text += "." + f"{fraction:06d}".rstrip("0")
    return text + "Z"


def _temporal_ms(value: dt.datetime) -> int:
    return epoch_micros(value) // 1000


TIMESTAMP_MS = ColumnType(_spec("int64", "io.debezium.time.Timestamp", 1), _temporal_ms, 0)
TIMESTAMP_US = ColumnType(_spec("int64", "io.debezium.time.MicroTimestamp", 1), epoch_micros, 0)
DATE_DAYS = ColumnType(_spec("int32", "io.debezium.time.Date", 1), epoch_days, 0)
TIME_US = ColumnType(_spec("int64", "io.debezium.time.MicroTime", 1), duration_micros, 0)
TIME_MS = ColumnType(_spec("int32", "io.debezium.time.Time", 1), lambda v: duration_micros(v) // 1000, 0)
STRING = ColumnType(_spec("string"), str, "")
BYTES = ColumnType(_spec("bytes"), bytes, b"")
BOOLEAN = ColumnType(_spec("boolean"), bool, False)
JSON_TEXT = ColumnType(_spec("string", "io.debezium.data.Json", 1), str, "{}")


def zoned(width: int | None) -> ColumnType:
    return ColumnType(_spec("string", "io.debezium.time.ZonedTimestamp", 1), lambda v: zoned_timestamp(v, width),
                      "1970-01-01T00:00:00Z")


# ---------------------------------------------------------------------------------------------
# MariaDB / MySQL column types (debezium-connector-mariadb MariaDbAntlrDdlParser data types,
# debezium-connector-binlog BinlogValueConverters, debezium-core JdbcValueConverters).

_MYSQL_TYPE = re.compile(r"^\s*([a-z0-9_]+)\s*(?:\((.*)\))?\s*(.*)$", re.S)


@dataclass(frozen=True)
class MySqlType:
    """A MariaDB COLUMN_TYPE as Debezium's DDL parser reads it."""

    base: str
    args: tuple[str, ...]
    unsigned: bool
    zerofill: bool

    @classmethod
    def parse(cls, text: str) -> MySqlType:
        m = _MYSQL_TYPE.match(text.lower())
        if not m:
            raise ValueError(f"unknown column type {text!r}")
        base, args, rest = m.group(1), m.group(2), m.group(3)
        if base in ("enum", "set"):
            parsed = tuple(o.replace("''", "'") for o in re.findall(r"'((?:[^']|'')*)'", args or ""))
        else:
            parsed = tuple(a.strip() for a in args.split(",")) if args else ()
        return cls(base, parsed, "unsigned" in rest, "zerofill" in rest)

    @property
    def length(self) -> int | None:
        return int(self.args[0]) if self.args and self.base not in ("enum", "set") else None

    @property
    def scale(self) -> int | None:
        return int(self.args[1]) if len(self.args) > 1 and self.base not in ("enum", "set") else None


_MYSQL_INTEGERS = {  # base -> (signed, unsigned) Connect type; TINYINT is Types.SMALLINT in the parser
    "tinyint": ("int16", "int16"), "smallint": ("int16", "int32"), "mediumint": ("int32", "int32"),
    "int": ("int32", "int64"), "integer": ("int32", "int64"), "bigint": ("int64", "int64"),
}
_MYSQL_TEXT = {"char", "varchar", "tinytext", "text", "mediumtext", "longtext"}
_MYSQL_BINARY = {"binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob"}


def mysql_column_type(column: Column, bigint_unsigned: Literal["long", "precise"]) -> ColumnType:
    """The Connect type of a MariaDB column under the connector defaults
    (decimal.handling.mode=precise, time.precision.mode=adaptive_time_microseconds,
    bigint.unsigned.handling.mode=long, binary.handling.mode=bytes)."""
    t = MySqlType.parse(column.type)
    if t.base in _MYSQL_INTEGERS:
        return _mysql_integer(t, bigint_unsigned)
    if t.base == "float" and t.scale is None and (t.length or 0) <= 24:
        return _float(single=True)  # BinlogValueConverters: FLOAT(p<=24) -> FLOAT32
    if t.base in ("float", "double", "real"):
        return _float(single=False)
    if t.base in ("decimal", "numeric", "dec", "fixed"):
        return connect_decimal(t.length or 10, t.scale or 0)
    if t.base == "bit":
        return _mysql_bit(t.length or 1)
    if t.base in _MYSQL_TEXT or t.base == "json":
        # Silent: MariaDB's JSON is LONGTEXT; a schema read by SHOW CREATE TABLE says longtext,
        # so Debezium sends a plain string (its own JSON tests skip MariaDB: "treated as long text").
        return STRING
    if t.base in _MYSQL_BINARY:
        return _mysql_binary(t)
    return _mysql_temporal_or_label(t)


def _mysql_integer(t: MySqlType, bigint_unsigned: Literal["long", "precise"]) -> ColumnType:
    if t.base == "bigint" and t.unsigned:
        if bigint_unsigned == "precise":
            return ColumnType(connect_decimal(20, 0).spec, lambda v: java_big_integer_bytes(int(v)), bytes(1))
        # the binlog client reads BIGINT UNSIGNED into a signed long: 2**63 and above wrap negative
        return ColumnType(_spec("int64"), lambda v: int(v) - (1 << 64) if int(v) >= 1 << 63 else int(v), 0)
    signed, unsigned = _MYSQL_INTEGERS[t.base]
    return _integer(unsigned if t.unsigned else signed)


def _bit_int(value: Any) -> int:
    return int.from_bytes(value, "big") if isinstance(value, (bytes, bytearray)) else int(value)


def _mysql_bit(length: int) -> ColumnType:
    """BIT(1) is a boolean; BIT(n>1) io.debezium.data.Bits: little-endian bytes padded to
    ceil(n/8) (JdbcValueConverters.convertBits reverses the binlog's big-endian bytes)."""
    if length == 1:
        return ColumnType(_spec("boolean"), lambda v: bool(_bit_int(v)), False)
    size = (length + 7) // 8
    spec = _spec("bytes", "io.debezium.data.Bits", 1, parameters={"length": str(length)})
    return ColumnType(spec, lambda v: _bit_int(v).to_bytes(size, "little"), b"")


def _mysql_binary(t: MySqlType) -> ColumnType:
    """BINARY(n) is right-padded with zero bytes to n (BinlogValueConverters.normalizeBinaryData,
    DBZ-254: the binlog drops the padding); other binaries as they are."""
    if t.base == "binary":
        size = t.length or 1
        return ColumnType(_spec("bytes"), lambda v: bytes(v).ljust(size, b"\0"), b"")
    return BYTES


def _mysql_temporal_or_label(t: MySqlType) -> ColumnType:
    precision = t.length or 0
    if t.base == "date":
        return _year_adjusted(DATE_DAYS)
    if t.base == "datetime":
        return _year_adjusted(TIMESTAMP_MS if precision <= 3 else TIMESTAMP_US)
    if t.base == "timestamp":
        return zoned(t.length)  # fraction width = the column length (JdbcValueConverters)
    if t.base == "time":
        return TIME_US  # adaptive_time_microseconds: every TIME is MicroTime
    if t.base == "year":
        # the binlog stores YEAR as year - 1900 with 0 for 0000, read back as Year.of(1900 + b)
        # (RowDeserializers.deserializeYear): YEAR 0000 arrives as 1900
        return ColumnType(_spec("int32", "io.debezium.time.Year", 1), lambda v: int(v) or 1900, 0)
    if t.base in ("enum", "set"):
        name = "io.debezium.data.Enum" if t.base == "enum" else "io.debezium.data.EnumSet"
        return ColumnType(_spec("string", name, 1, parameters={"allowed": ",".join(t.args)}), str, "")
    raise ValueError(f"no Debezium rendering for MariaDB type {t.base!r}")


def _year_adjusted(column_type: ColumnType) -> ColumnType:
    """BinlogValueConverters.adjustTemporal (enable.time.adjuster, on by default) reads years
    0-69 as 2000-2069 and 70-99 as 1970-1999, as MySQL does two-digit years; Year.plus keeps
    the day valid (Feb 29 becomes Feb 28)."""
    def adjust(value: dt.date) -> Any:
        if value.year >= 100:
            return column_type.encode(value)
        year = value.year + (2000 if value.year <= 69 else 1900)
        try:
            moved = value.replace(year=year)
        except ValueError:
            moved = value.replace(year=year, day=28)
        return column_type.encode(moved)

    return ColumnType(column_type.spec, adjust, column_type.fallback)


# java.sql.Types and names as the MariaDB DDL parser records them in schema-change events
_JDBC = {"tinyint": 5, "smallint": 5, "mediumint": 4, "int": 4, "integer": 4, "bigint": -5, "float": 6,
         "double": 8, "real": 8, "decimal": 3, "numeric": 2, "bit": -7, "char": 1, "varchar": 12, "tinytext": 12,
         "text": 12, "mediumtext": 12, "longtext": 12, "json": 12, "binary": -2, "varbinary": -3,
         "tinyblob": 2004, "blob": 2004, "mediumblob": 2004, "longblob": 2004, "date": 91, "datetime": 93,
         "timestamp": 2014, "time": 92, "year": 4, "enum": 1, "set": 1}
_STRING_JDBC = {1, 12}


def mysql_schema_column(column: Column, position: int) -> dict[str, Any]:
    """One column of a schema-change event's table (ConnectTableChangeSerializer). Silent
    (the Capture has no such facts): charset utf8mb4 for string columns, no column comments,
    defaults, auto-increment or generated flags."""
    t = MySqlType.parse(column.type)
    base = "longtext" if t.base == "json" else t.base
    name = base.upper() + (" UNSIGNED" if t.unsigned else "") + (" ZEROFILL" if t.zerofill else "")
    length = t.length
    if base in ("enum", "set"):
        length = 1 if base == "enum" else max(0, 2 * len(t.args) - 1)
    elif base in ("decimal", "numeric") and length is None:
        length = 10
    scale = t.scale if t.scale is not None else (0 if base in ("decimal", "numeric") else None)
    jdbc = _JDBC.get(base, 1111)
    return {"name": column.name, "jdbcType": jdbc, "nativeType": None, "typeName": name, "typeExpression": name,
            "charsetName": "utf8mb4" if jdbc in _STRING_JDBC else None, "length": length, "scale": scale,
            "position": position, "optional": column.nullable, "autoIncremented": False, "generated": False,
            "comment": None, "defaultValueExpression": None,
            "enumValues": list(t.args) if base in ("enum", "set") else None}


# ---------------------------------------------------------------------------------------------
# PostgreSQL column types (debezium-connector-postgres PostgresValueConverter; the connector's
# time.precision.mode default is `adaptive`; pgoutput gives timestamp precision 6 when unset).

_PG_PRECISION = re.compile(r"\((\d+)\)")


def _pg_precision(type_: str) -> int:
    m = _PG_PRECISION.search(type_)
    return int(m.group(1)) if m else 6


def postgres_column_type(column: Column) -> ColumnType:
    t = column.type.lower().strip()
    simple = {"smallint": _integer("int16"), "integer": _integer("int32"), "bigint": _integer("int64"),
              "real": _float(single=True), "double precision": _float(single=False), "boolean": BOOLEAN,
              "bytea": BYTES, "date": DATE_DAYS, "json": JSON_TEXT, "jsonb": JSON_TEXT, "text": STRING,
              "uuid": ColumnType(_spec("string", "io.debezium.data.Uuid", 1), str, "")}
    if t in simple:
        return simple[t]
    if t.startswith(("character", "char", "varchar")):
        return STRING
    if t.startswith("numeric"):
        return _pg_numeric(t)
    if t.startswith("timestamp") and "with time zone" in t:
        m = _PG_PRECISION.search(t)
        return zoned(int(m.group(1)) if m else 6)  # the column scale is the fraction width
    if t.startswith("timestamp"):
        return TIMESTAMP_MS if _pg_precision(t) <= 3 else TIMESTAMP_US
    if t.startswith("time") and "with time zone" not in t:
        return TIME_MS if _pg_precision(t) <= 3 else TIME_US
    raise ValueError(f"no Debezium rendering for PostgreSQL type {column.type!r}")


def _pg_numeric(type_: str) -> ColumnType:
    m = re.fullmatch(r"numeric\((\d+)(?:,(\d+))?\)", type_.replace(" ", ""))
    if m is None:  # numeric without precision: VariableScaleDecimal
        spec = _spec("struct", "io.debezium.data.VariableScaleDecimal", 1, doc="Variable scaled decimal",
                     fields=[member("scale", plain("int32", False)), member("value", plain("bytes", False))])
        return ColumnType(spec, lambda v: variable_scale_decimal(Decimal(v)), {"scale": 0, "value": bytes(1)})
    return connect_decimal(int(m.group(1)), int(m.group(2) or 0))


# ---------------------------------------------------------------------------------------------
# The Debezium envelope (debezium-core Envelope, SchemaFactory, AbstractSourceInfoStructMaker).

_SNAPSHOT = connect_schema("string", True, name="io.debezium.data.Enum", version=1,
                           parameters={"allowed": "true,last,false,incremental"}, default="false")
_COMMON_SOURCE = [("version", plain("string", False)), ("connector", plain("string", False)),
                  ("name", plain("string", False)), ("ts_ms", plain("int64", False)), ("snapshot", _SNAPSHOT),
                  ("db", plain("string", False)), ("sequence", plain("string", True)),
                  ("ts_us", plain("int64", True)), ("ts_ns", plain("int64", True))]
_BINLOG_SOURCE = [
    *_COMMON_SOURCE,
    ("table", plain("string", True)), ("server_id", plain("int64", False)), ("gtid", plain("string", True)),
    ("file", plain("string", False)), ("pos", plain("int64", False)), ("row", plain("int32", False)),
    ("thread", plain("int64", True)), ("query", plain("string", True))]
_POSTGRES_SOURCE = [
    *_COMMON_SOURCE,
    ("schema", plain("string", False)), ("table", plain("string", False)), ("txId", plain("int64", True)),
    ("lsn", plain("int64", True)), ("xmin", plain("int64", True))]
_TRANSACTION = connect_schema("struct", True, name="event.block", version=1, fields=[
    member("id", plain("string", False)), member("total_order", plain("int64", False)),
    member("data_collection_order", plain("int64", False))])


def struct_schema(fields: list[tuple[str, dict[str, Any]]], optional: bool, name: str | None = None,
                  version: int | None = None) -> dict[str, Any]:
    return connect_schema("struct", optional, name=name, version=version,
                          fields=[member(f, s) for f, s in fields])


def source_schema(connector: str) -> dict[str, Any]:
    fields = _POSTGRES_SOURCE if connector == "postgresql" else _BINLOG_SOURCE
    return struct_schema(fields, False, f"io.debezium.connector.{connector}.Source")


@dataclass(frozen=True)
class TableShape:
    """A table as the connector knows it at one point of the log: its columns with their
    Connect types, and the schema names (`<topic.prefix>.<db or schema>.<table>`, the topic
    naming strategy's record schema prefix, independent of any topic routing)."""

    schema: TableSchema
    types: tuple[ColumnType, ...]
    prefix: str

    @property
    def keyed(self) -> bool:
        return bool(self.schema.pk)

    def image(self, row: Row | None) -> dict[str, Any] | None:
        if row is None:
            return None
        return {c.name: t.value(c, row.get(c.name)) for c, t in zip(self.schema.columns, self.types, strict=True)}

    def key(self, row: Row) -> dict[str, Any]:
        return {c: self.image(row)[c] for c in self.schema.pk}  # type: ignore[index]

    def value_schema(self) -> dict[str, Any]:
        fields = [(c.name, t.schema(c)) for c, t in zip(self.schema.columns, self.types, strict=True)]
        return struct_schema(fields, True, f"{self.prefix}.Value")

    def key_schema(self) -> dict[str, Any]:
        by_name = {c.name: (c, t) for c, t in zip(self.schema.columns, self.types, strict=True)}
        return struct_schema([(name, by_name[name][1].schema(by_name[name][0])) for name in self.schema.pk],
                             False, f"{self.prefix}.Key")

    def envelope_schema(self, connector: str) -> dict[str, Any]:
        value = self.value_schema()
        return struct_schema([("before", value), ("after", value), ("source", source_schema(connector)),
                              ("transaction", _TRANSACTION), ("op", plain("string", False)),
                              ("ts_ms", plain("int64", True)), ("ts_us", plain("int64", True)),
                              ("ts_ns", plain("int64", True))], False, f"{self.prefix}.Envelope", 2)


def with_schema(schema: dict[str, Any], payload: Any, schemas: bool) -> str:
    """JsonConverter: `{"schema":…,"payload":…}` when schemas.enable, else the payload alone."""
    return dumps({"schema": schema, "payload": payload} if schemas else payload)


@dataclass
class Step:
    """One Kafka message of a row change: an envelope (`op` set) or a tombstone (`op` None)."""

    op: str | None
    before: Row | None
    after: Row | None
    key_row: Row


def debezium_steps(shape: TableShape, kind: str, change: RowChange, tombstones: bool) -> list[Step]:
    """RelationalChangeRecordEmitter: c / u / d, a delete followed by a tombstone
    (tombstones.on.delete=true, keyed tables only: a null key compacts nothing), and an
    update that changes the key as d (old key) + tombstone + c (new key); the Kafka headers
    __debezium.newkey/oldkey of that pair are not modelled by Record."""
    if kind == "INSERT":
        assert change.after is not None
        return [Step("c", None, change.after, change.after)]
    if kind == "DELETE":
        assert change.before is not None
        return [Step("d", change.before, None, change.before), *_tombstone(shape, change.before, tombstones)]
    before, after = change.before, change.after
    assert after is not None
    if before is None or not shape.keyed or shape.key(before) == shape.key(after):
        return [Step("u", before, after, after)]
    return [Step("d", before, None, before), *_tombstone(shape, before, tombstones), Step("c", None, after, after)]


def _tombstone(shape: TableShape, row: Row, tombstones: bool) -> list[Step]:
    return [Step(None, None, None, row)] if tombstones and shape.keyed else []


class ProcessingClock:
    """The connector's own clock (envelope ts_ms, heartbeat ts_ms, producer timestamps): the
    log time plus a seeded lag of 0.2-1.5 s, never running backwards."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.micros = 0

    def tick(self, event_micros: int) -> int:
        self.micros = max(self.micros + self.rng.randrange(20, 400),
                          event_micros + self.rng.randrange(200_000, 1_500_000))
        return self.micros


class Topics:
    """One PartitionWriter per topic, records kept in production order across topics."""

    def __init__(self, partitions: int) -> None:
        self.partitions = partitions
        self.writers: dict[str, PartitionWriter] = {}
        self.records: list[Record] = []

    def send(self, topic: str, partition: int, timestamp_ms: int, value: str | None, key: str | None,
             partitions: int | None = None) -> None:
        writer = self.writers.setdefault(topic, PartitionWriter(topic, partitions or self.partitions))
        self.records.append(writer.send(partition, timestamp_ms, value, key))


@dataclass
class DebeziumRun:
    """What one Debezium rendering shares: options, clock, topics, heartbeat cadence."""

    topic: str
    server_name: str
    connector: str
    schemas: bool
    clock: ProcessingClock
    topics: Topics
    heartbeat_every: int  # 0: no heartbeats (heartbeat.interval.ms=0, the default)
    events_seen: int = 0

    def envelope(self, shape: TableShape, step: Step, source: dict[str, Any], now_us: int) -> str:
        payload = {"before": shape.image(step.before), "after": shape.image(step.after), "source": source,
                   "transaction": None, "op": step.op, "ts_ms": now_us // 1000, "ts_us": now_us,
                   "ts_ns": now_us * 1000}
        return with_schema(shape.envelope_schema(self.connector), payload, self.schemas)

    def key(self, shape: TableShape, row: Row) -> str | None:
        if not shape.keyed:
            return None
        return with_schema(shape.key_schema(), shape.key(row), self.schemas)

    def emit_steps(self, shape: TableShape, steps: list[Step], source: dict[str, Any], event_us: int) -> None:
        """Partition by the key's hash, as Kafka's default partitioner does for a keyed record
        (Debezium sets no partition); a keyless table's records go by table."""
        for step in steps:
            now = self.clock.tick(event_us)
            value = None if step.op is None else self.envelope(shape, step, source, now)
            partition = key_partition(shape.schema, step.key_row, self.topics.partitions)
            self.topics.send(self.topic, partition, now // 1000 + 2, value, self.key(shape, step.key_row))

    def emit_truncate(self, shape: TableShape, source: dict[str, Any], event_us: int) -> None:
        """op `t`: no before/after, a null key, so the producer picks the partition (by table here)."""
        now = self.clock.tick(event_us)
        payload = {"before": None, "after": None, "source": source, "transaction": None, "op": "t",
                   "ts_ms": now // 1000, "ts_us": now, "ts_ns": now * 1000}
        value = with_schema(shape.envelope_schema(self.connector), payload, self.schemas)
        partition = table_partition(shape.schema.db, shape.schema.name, self.topics.partitions)
        self.topics.send(self.topic, partition, now // 1000 + 2, value, None)

    def after_event(self, event_us: int) -> None:
        """HeartbeatImpl: `__debezium-heartbeat.<topic.prefix>`, partition 0, key
        {serverName}, value {ts_ms} (connector time); emitted after a log event once the
        interval has passed, here every `heartbeat_every` events."""
        self.events_seen += 1
        if not self.heartbeat_every or self.events_seen % self.heartbeat_every:
            return
        now = self.clock.tick(event_us)
        key = with_schema(struct_schema([("serverName", plain("string", False))], False,
                                        "io.debezium.connector.common.ServerNameKey", 1),
                          {"serverName": self.server_name}, self.schemas)
        value = with_schema(struct_schema([("ts_ms", plain("int64", False))], False,
                                          "io.debezium.connector.common.Heartbeat", 1),
                            {"ts_ms": now // 1000}, self.schemas)
        self.topics.send(f"__debezium-heartbeat.{self.server_name}", 0, now // 1000 + 2, value, key, partitions=1)


def _event_schema(capture: Capture, event: Event) -> TableSchema:
    """The table's columns in force for the event (a TRUNCATE may come without them)."""
    if event.schema is not None:
        return event.schema
    return next(s for s in capture.tables() if s.name == event.table and event.db in (s.db, s.schema))


# ---------------------------------------------------------------------------------------------
# Debezium 2.7 for MariaDB binlogs.


def render_debezium_mysql(capture: Capture, db: str, topic: str, partitions: int = 3, seed: int = 0, *,
                          schemas: bool, connector: Literal["mariadb", "mysql"] = "mariadb",
                          server_name: str = "realdb", emit_truncate: bool = True, heartbeats: bool = True,
                          heartbeat_every: int = 25, bigint_unsigned: Literal["long", "precise"] = "long",
                          schema_topic: str | None = None) -> list[Record]:
    """A MariaDB capture as Debezium 2.7 writes it with JsonConverter (schemas.enable =
    `schemas`), all tables routed to `topic`.

    `connector`: Debezium 2.7 captures MariaDB with its own MariaDB connector (DBZ-7693 moved it
    out of the MySQL connector): source.connector "mariadb", source.gtid "domain-server-seq"
    (MariaDbStreamingChangeEventSource.handleGtidEvent). "mysql" renders the MySQL connector
    pointed at MariaDB: it listens for MySQL GTID events only, so gtid stays null.
    `emit_truncate`: Debezium's default skipped.operations=t drops `t` events; True renders
    skipped.operations=none. DDL goes to `schema_topic` (default `topic + ".schema-changes"`;
    Debezium names it `<topic.prefix>`), TRUNCATE included (type TRUNCATE, no tableChanges)."""
    if capture.source != "mariadb":
        raise ValueError("render_debezium_mysql renders a MariaDB capture")
    run = DebeziumRun(topic, server_name, connector, schemas, ProcessingClock(seed), Topics(partitions),
                      heartbeat_every if heartbeats else 0)
    binlog = BinlogState(connector=connector, server_name=server_name, db=db)
    for event in capture.events:
        event_us = event.ts * 1_000_000
        if event.kind == "rows":
            shape = mysql_shape(_event_schema(capture, event), db, server_name, bigint_unsigned)
            for index, change in enumerate(event.rows):
                binlog.row = index
                run.emit_steps(shape, debezium_steps(shape, event.op, change, tombstones=True),
                               binlog.source(event, event.table), event_us)
        else:
            if event.op == "TRUNCATE" and emit_truncate:
                shape = mysql_shape(_event_schema(capture, event), db, server_name, bigint_unsigned)
                run.emit_truncate(shape, binlog.source(event, event.table), event_us)
            emit_schema_change(run, binlog, event, schema_topic or f"{topic}.schema-changes")
        run.after_event(event_us)
    return run.topics.records


def mysql_shape(schema: TableSchema, db: str, server_name: str,
                bigint_unsigned: Literal["long", "precise"]) -> TableShape:
    types = tuple(mysql_column_type(c, bigint_unsigned) for c in schema.columns)
    return TableShape(schema, types, f"{server_name}.{db}.{schema.name}")


@dataclass
class BinlogState:
    """The binlog connector's source info between events. `row` is only ever set by row
    events (BinlogOffsetContext.setRowNumber), so a DDL or TRUNCATE carries the row number of
    the last row event before it; `thread` stays null for MariaDB (its transactions open with a
    GTID event, not a BEGIN query carrying the thread id)."""

    connector: str
    server_name: str
    db: str
    row: int = 0

    def source(self, event: Event, table: str) -> dict[str, Any]:
        ts_ms = event.ts * 1000
        gtid = event.gtid if self.connector == "mariadb" else None
        return {"version": DEBEZIUM_VERSION, "connector": self.connector, "name": self.server_name,
                "ts_ms": ts_ms, "snapshot": "false", "db": self.db, "sequence": None, "ts_us": ts_ms * 1000,
                "ts_ns": ts_ms * 1_000_000, "table": table or None, "server_id": _server_id(event.gtid),
                "gtid": gtid, "file": event.log_file, "pos": event.log_pos, "row": self.row, "thread": None,
                "query": None}


def _server_id(gtid: str | None) -> int:
    """The binlog event header's server id, which the Capture keeps only inside the MariaDB
    GTID (domain-server-seq); 1 (the harness server's id) for an event without one."""
    return int(gtid.split("-")[1]) if gtid else 1


_DDL_KINDS = [(re.compile(r"^\s*create\s+(or\s+replace\s+)?(temporary\s+)?table\b", re.I), "CREATE"),
              (re.compile(r"^\s*(alter\s+(online\s+|ignore\s+)*table|rename\s+table|"
                          r"create\s+(unique\s+|fulltext\s+|spatial\s+)?index|drop\s+index)\b", re.I), "ALTER"),
              (re.compile(r"^\s*drop\s+(temporary\s+)?table\b", re.I), "DROP")]


def ddl_kind(sql: str) -> str | None:
    """The tableChanges type of a DDL (BinlogDatabaseSchema.parseDdl); TRUNCATE and
    database-level statements carry no table change."""
    return next((kind for pattern, kind in _DDL_KINDS if pattern.match(sql)), None)


def emit_schema_change(run: DebeziumRun, binlog: BinlogState, event: Event, topic: str) -> None:
    """EventDispatcher.SchemaChangeEventReceiver: partition 0, key {databaseName}, value
    {source, ts_ms (connector time), databaseName, schemaName, ddl, tableChanges}."""
    event_us = event.ts * 1_000_000
    now = run.clock.tick(event_us)
    kind = ddl_kind(event.sql or "")
    changes: list[dict[str, Any]] = []
    if kind and event.table:
        table = None
        if kind != "DROP" and event.schema is not None:
            table = {"defaultCharsetName": "utf8mb4", "primaryKeyColumnNames": list(event.schema.pk),
                     "columns": [mysql_schema_column(c, i) for i, c in enumerate(event.schema.columns, 1)],
                     "comment": None}
        changes.append({"type": kind, "id": f'"{binlog.db}"."{event.table}"', "table": table})
    payload = {"source": binlog.source(event, event.table), "ts_ms": now // 1000, "databaseName": binlog.db,
               "schemaName": None, "ddl": _rename_db(event.sql or "", event.db, binlog.db), "tableChanges": changes}
    connector = run.connector
    key = with_schema(struct_schema([("databaseName", plain("string", False))], False,
                                    f"io.debezium.connector.{connector}.SchemaChangeKey", 1),
                      {"databaseName": binlog.db}, run.schemas)
    run.topics.send(topic, 0, now // 1000 + 2, with_schema(_schema_change_schema(connector), payload, run.schemas),
                    key, partitions=1)


def _rename_db(sql: str, captured: str, db: str) -> str:
    """The DDL text with the captured database's qualified names pointed at `db`."""
    if not captured or captured == db:
        return sql
    sql = sql.replace(f"`{captured}`.", f"`{db}`.")
    return re.sub(rf"(?<![\w`$]){re.escape(captured)}(?=\.[\w`])", db, sql)


def _schema_change_schema(connector: str) -> dict[str, Any]:
    """SchemaFactory.schemaHistoryConnectorValueSchema and the Change/Table/Column structs."""
    s, i, b = (lambda o: plain("string", o)), (lambda o: plain("int32", o)), plain("boolean", True)
    column = struct_schema([("name", s(False)), ("jdbcType", i(False)), ("nativeType", i(True)),
                            ("typeName", s(False)), ("typeExpression", s(True)), ("charsetName", s(True)),
                            ("length", i(True)), ("scale", i(True)), ("position", i(False)), ("optional", b),
                            ("autoIncremented", b), ("generated", b), ("comment", s(True)),
                            ("defaultValueExpression", s(True)),
                            ("enumValues", connect_schema("array", True, items=s(False)))],
                           False, "io.debezium.connector.schema.Column", 1)
    table = struct_schema([("defaultCharsetName", s(True)),
                           ("primaryKeyColumnNames", connect_schema("array", True, items=s(False))),
                           ("columns", connect_schema("array", False, items=column)), ("comment", s(True))],
                          True, "io.debezium.connector.schema.Table", 1)
    change = struct_schema([("type", s(False)), ("id", s(False)), ("table", table)], False,
                           "io.debezium.connector.schema.Change", 1)
    return struct_schema([("source", source_schema(connector)), ("ts_ms", plain("int64", False)),
                          ("databaseName", s(True)), ("schemaName", s(True)), ("ddl", s(True)),
                          ("tableChanges", connect_schema("array", False, items=change))],
                         False, f"io.debezium.connector.{connector}.SchemaChangeValue", 1)


# ---------------------------------------------------------------------------------------------
# Debezium 2.7 for PostgreSQL (pgoutput).


def render_debezium_postgres(capture: Capture, db: str, topic: str, partitions: int = 3, seed: int = 0, *,
                             schemas: bool, server_name: str = "realdb", emit_truncate: bool = True,
                             heartbeats: bool = True, heartbeat_every: int = 25) -> list[Record]:
    """A PostgreSQL capture as the Debezium 2.7 PostgreSQL connector (plugin.name=pgoutput)
    writes it with JsonConverter, all tables routed to `topic`. `before` is whatever the log
    carried (REPLICA IDENTITY FULL: the old row; DEFAULT: nothing on update, the key on
    delete, the other NOT NULL columns then filled with converter fallbacks). DDL has no topic
    of its own (the PostgreSQL connector keeps no schema history); TRUNCATE is `t` per table
    when `emit_truncate` (the connector default skipped.operations=t drops it)."""
    if capture.source != "postgres":
        raise ValueError("render_debezium_postgres renders a PostgreSQL capture")
    run = DebeziumRun(topic, server_name, "postgresql", schemas, ProcessingClock(seed), Topics(partitions),
                      heartbeat_every if heartbeats else 0)
    for event, last_commit in with_last_commit(capture.events):
        event_us = event.ts_us or event.ts * 1_000_000
        if event.kind == "rows" or (event.op == "TRUNCATE" and emit_truncate):
            schema = _event_schema(capture, event)
            shape = postgres_shape(schema, server_name)
            source = postgres_source(event, schema, db, server_name, last_commit)
            if event.kind == "rows":
                for change in event.rows:
                    run.emit_steps(shape, debezium_steps(shape, event.op, change, tombstones=True), source, event_us)
            else:
                run.emit_truncate(shape, source, event_us)
        run.after_event(event_us)
    return run.topics.records


def postgres_shape(schema: TableSchema, server_name: str) -> TableShape:
    types = tuple(postgres_column_type(c) for c in schema.columns)
    return TableShape(schema, types, f"{server_name}.{schema.schema or 'public'}.{schema.name}")


def with_last_commit(events: list[Event]) -> Iterator[tuple[Event, int | None]]:
    """Each event with the connector's lastCommitLsn at that point: the LSN of the previous
    transaction's COMMIT (PostgresOffsetContext.updateCommitPosition). The Capture has no
    commit LSNs, so the previous transaction's last change LSN stands in for it; the first
    transaction after the connector start has none (null)."""
    last_commit: int | None = None
    current_xid: int | None = None
    current_max: int | None = None
    for event in events:
        if event.xid != current_xid:
            if current_max is not None:
                last_commit = current_max
            current_xid, current_max = event.xid, None
        if event.lsn is not None:
            current_max = event.lsn if current_max is None else max(current_max, event.lsn)
        yield event, last_commit


def postgres_source(event: Event, schema: TableSchema, db: str, server_name: str,
                    last_commit: int | None) -> dict[str, Any]:
    """PostgresSourceInfoStructMaker: ts_ms is the commit time, `sequence` the JSON text
    ["<lastCommitLsn>","<lsn>"] (SourceInfo.sequence, null members allowed)."""
    ts_us = event.ts_us or event.ts * 1_000_000
    sequence = dumps([None if last_commit is None else str(last_commit),
                      None if event.lsn is None else str(event.lsn)])
    return {"version": DEBEZIUM_VERSION, "connector": "postgresql", "name": server_name, "ts_ms": ts_us // 1000,
            "snapshot": "false", "db": db, "sequence": sequence, "ts_us": ts_us, "ts_ns": ts_us * 1000,
            "schema": schema.schema or "public", "table": schema.name, "txId": event.xid, "lsn": event.lsn,
            "xmin": None}


# ---------------------------------------------------------------------------------------------
# Huawei MRS CDL (FORMATS.md §5). The vendor page shows only PostgreSQL examples and says the
# Debezium JSON (2.0) variant exists only for drs-opengauss-json, PostgreSQL and openGauss
# sources; both renderers therefore take a PostgreSQL capture.
#
# Silent, and chosen here: CDL sits on Debezium 1.4's PostgreSQL connector (the 2.0 example's
# source block), so a key change is a DELETE of the old key then an INSERT of the new one; the
# page defines no message without a payload, so no tombstones; no Kafka key is documented, so
# keys are null and records are spread by primary-key hash; TRUNCATE and DDL are not CDL
# operations and are dropped. Types the examples do not show use Kafka Connect's own logical
# types (Date, Time), numeric is CDL's Decimal text in plain notation, LOB_COLUMNS names the
# text/bytea/json/jsonb columns.

_CDL_DECIMAL = "com.xxx.cdc.data.Decimal"  # "com.xxx" exactly as the vendor page prints it
_CDL_TIMESTAMP = "com.xxx.cdc.data.timestamp"
_CDL_LOB_TYPES = ("text", "bytea", "json", "jsonb")


def cdl_column_type(column: Column, version: Literal["1.0", "2.0"]) -> ColumnType:
    """CDL's Connect types: integers and floats as Connect primitives, numeric as the
    com.xxx.cdc.data.Decimal string, timestamps as Connect Timestamp ms (1.0) or the
    com.xxx.cdc.data.timestamp string (2.0; Silent on its text: PostgreSQL's own output form)."""
    t = column.type.lower().strip()
    if t.startswith("numeric"):
        return ColumnType(_spec("string", _CDL_DECIMAL), lambda v: format(Decimal(v), "f"), "0")
    if t.startswith("timestamp"):
        if version == "2.0":
            return ColumnType(_spec("string", _CDL_TIMESTAMP), _pg_timestamp_text, "")
        return ColumnType(_spec("int64", "org.apache.kafka.connect.data.Timestamp", 1), _temporal_ms, 0)
    if t == "date":
        return ColumnType(_spec("int32", "org.apache.kafka.connect.data.Date", 1), epoch_days, 0)
    if t.startswith("time"):
        return ColumnType(_spec("int32", "org.apache.kafka.connect.data.Time", 1),
                          lambda v: duration_micros(v) // 1000, 0)
    if t in ("json", "jsonb", "uuid"):
        return STRING
    return postgres_column_type(column)


def _pg_timestamp_text(value: dt.datetime) -> str:
    """PostgreSQL's text output of a timestamp: fraction without trailing zeros, +00 for UTC."""
    if value.tzinfo is not None:
        value = value.astimezone(dt.UTC)
    fraction = f".{value.microsecond:06d}".rstrip("0") if value.microsecond else ""
    return f"{value.date().isoformat()} {value:%H:%M:%S}{fraction}" + ("+00" if value.tzinfo else "")


@dataclass(frozen=True)
class CdlShape:
    schema: TableSchema
    types: tuple[ColumnType, ...]

    def image(self, row: Row | None) -> dict[str, Any] | None:
        if row is None:
            return None
        return {c.name: t.value(c, row.get(c.name)) for c, t in zip(self.schema.columns, self.types, strict=True)}

    def unique(self, row: Row) -> dict[str, Any] | None:
        image = self.image(row)
        assert image is not None
        return {c: image[c] for c in self.schema.pk} or None

    def row_schema(self, name: str, field: str) -> dict[str, Any]:
        fields = [member(c.name, t.schema(c)) for c, t in zip(self.schema.columns, self.types, strict=True)]
        return member(field, connect_schema("struct", True, name=name, fields=fields))

    def unique_schema(self) -> dict[str, Any]:
        by_name = {c.name: (c, t) for c, t in zip(self.schema.columns, self.types, strict=True)}
        fields = [member(n, by_name[n][1].schema(by_name[n][0])) for n in self.schema.pk]
        return member("unique", connect_schema("struct", True, name="unique", fields=fields))

    @property
    def lob_columns(self) -> str | None:
        return ",".join(c.name for c in self.schema.columns if c.type.lower() in _CDL_LOB_TYPES) or None

    @property
    def full_name(self) -> str:
        return f"{self.schema.schema or 'public'}.{self.schema.name}"


def cdl_steps(kind: str, change: RowChange, shape: CdlShape) -> list[tuple[str, Row | None, Row | None]]:
    """(operation, before, after) per message; see the section comment for key changes."""
    if kind == "INSERT":
        return [("INSERT", None, change.after)]
    if kind == "DELETE":
        return [("DELETE", change.before, None)]
    before, after = change.before, change.after
    assert after is not None
    if before is not None and shape.schema.pk and shape.unique(before) != shape.unique(after):
        return [("DELETE", before, None), ("INSERT", None, after)]
    return [("UPDATE", before, after)]


CdlMessage = Callable[["CdlRun", "CdlShape", Event, str, "Row | None", "Row | None", int], str]


@dataclass
class CdlRun:
    """What both CDL renderings share: output, clock, message layout, heartbeat rows."""

    topic: str
    version: Literal["1.0", "2.0"]
    message: CdlMessage
    clock: ProcessingClock
    topics: Topics
    rng: random.Random
    heartbeat_every: int
    job_id: str
    messages: int = 0
    last_lsn: int = 0
    last_xid: int = 0

    def heartbeat_id(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def send(self, partition: int, event_us: int, shape: CdlShape, event: Event, op: str, before: Row | None,
             after: Row | None) -> None:
        now_ms = self.clock.tick(event_us) // 1000
        value = self.message(self, shape, event, op, before, after, now_ms)
        self.topics.send(self.topic, partition, now_ms + 2, value, None)
        self.messages += 1


def _cdl_shape(schema: TableSchema, version: Literal["1.0", "2.0"]) -> CdlShape:
    return CdlShape(schema, tuple(cdl_column_type(c, version) for c in schema.columns))


def _cdl_render(capture: Capture, topic: str, partitions: int, seed: int, version: Literal["1.0", "2.0"],
                message: CdlMessage, heartbeats: bool, heartbeat_every: int, job_id: str) -> list[Record]:
    if capture.source != "postgres":
        raise ValueError("the CDL vendor page shows PostgreSQL sources only; give a PostgreSQL capture")
    run = CdlRun(topic, version, message, ProcessingClock(seed), Topics(partitions), random.Random(seed + 1),
                 heartbeat_every if heartbeats else 0, job_id)
    for event in capture.events:
        if event.kind != "rows":
            continue
        event_us = event.ts_us or event.ts * 1_000_000
        shape = _cdl_shape(_event_schema(capture, event), version)
        for change in event.rows:
            for op, before, after in cdl_steps(event.op, change, shape):
                row = after if after is not None else before
                assert row is not None
                run.send(key_partition(shape.schema, row, partitions), event_us, shape, event, op, before, after)
                run.last_lsn, run.last_xid = event.lsn or run.last_lsn, event.xid or run.last_xid
                if run.heartbeat_every and run.messages % run.heartbeat_every == 0:
                    _cdl_heartbeat(run, event, event_us)
    return run.topics.records


_HEARTBEAT_TABLE = TableSchema("", "CDC_HEARTBEAT", (Column("CDL_JOB_ID", "character varying(64)", False),
                                                     Column("CDL_LAST_HEARTBEAT", "timestamp(3) without time zone")),
                               ("CDL_JOB_ID",), "CDC_CDL")


def _cdl_heartbeat(run: CdlRun, event: Event, event_us: int) -> None:
    """A row update of CDL's heartbeat table CDC_CDL.CDC_HEARTBEAT(CDL_JOB_ID,
    CDL_LAST_HEARTBEAT) flowing through the data topic (FORMATS.md §5, doc mrs_01_24811).
    Silent: its lsn is the last change's + 1 and its txId the last change's (the Capture does
    not hold the heartbeat transaction)."""
    beat_us = run.clock.micros
    beat = Event("rows", event.db, "CDC_HEARTBEAT", "UPDATE", _HEARTBEAT_TABLE, lsn=run.last_lsn + 1,
                 xid=run.last_xid, ts_us=beat_us)
    row: Row = {"CDL_JOB_ID": run.job_id, "CDL_LAST_HEARTBEAT": _EPOCH + dt.timedelta(microseconds=beat_us)}
    partition = table_partition("CDC_CDL", "CDC_HEARTBEAT", run.topics.partitions)
    run.send(partition, event_us, _cdl_shape(_HEARTBEAT_TABLE, run.version), beat, "UPDATE", None, row)


def render_cdl_json(capture: Capture, db: str, topic: str, partitions: int = 3, seed: int = 0, *,
                    heartbeats: bool = True, heartbeat_every: int = 50, job_id: str = "cdl-job-1") -> list[Record]:
    """Huawei MRS CDL JSON (message_version 1.0, FORMATS.md §5 B1) from a PostgreSQL capture,
    field names and nesting as the vendor page's first example. The message holds no database
    name (SEG_OWNER is the schema), so `db` changes nothing."""
    return _cdl_render(capture, topic, partitions, seed, "1.0", _cdl_v1_message, heartbeats, heartbeat_every, job_id)


def _cdl_v1_message(run: CdlRun, shape: CdlShape, event: Event, op: str, before: Row | None,
                    after: Row | None, now_ms: int) -> str:
    """Payload and schema in the example's order; TIMESTAMP is the change (commit) time."""
    row = after if after is not None else before
    assert row is not None
    payload = {"DATA_STORE": "POSTGRESQL", "SEG_OWNER": shape.schema.schema or "public",
               "TABLE_NAME": shape.schema.name, "TIMESTAMP": (event.ts_us or event.ts * 1_000_000) // 1000,
               "OPERATION": op, "LOB_COLUMNS": shape.lob_columns,
               "transaction": {"properties": [{"name": "lsn", "value": event.lsn},
                                              {"name": "txId", "value": event.xid}]},
               "unique": shape.unique(row), "data": shape.image(after), "before": shape.image(before),
               "message_version": "1.0", "message_type": "0", "HEARTBEAT_IDENTIFIER": run.heartbeat_id()}
    s = plain
    properties = connect_schema("array", False, items=connect_schema("struct", False, fields=[
        member("name", s("string", False)), member("value", s("int64", False))]))
    fields = [member("DATA_STORE", s("string", False)), member("SEG_OWNER", s("string", False)),
              member("TABLE_NAME", s("string", False)),
              member("TIMESTAMP", connect_schema("int64", False, name="org.apache.kafka.connect.data.Timestamp",
                                                 version=1)),
              member("OPERATION", s("string", False)), member("LOB_COLUMNS", s("string", True)),
              member("transaction", connect_schema("struct", False, name="transaction",
                                                   fields=[member("properties", properties)])),
              shape.unique_schema(), shape.row_schema("data", "data"), shape.row_schema("before", "before"),
              member("message_version", s("string", False)), member("message_type", s("string", False)),
              member("HEARTBEAT_IDENTIFIER", s("string", True))]
    return dumps({"schema": connect_schema("struct", False, name=shape.full_name, fields=fields), "payload": payload})


def render_cdl_debezium(capture: Capture, db: str, topic: str, partitions: int = 3, seed: int = 0, *,
                        server_name: str = "cdl", heartbeats: bool = True, heartbeat_every: int = 50,
                        job_id: str = "cdl-job-1") -> list[Record]:
    """Huawei MRS CDL "open-source Debezium JSON" (message_version 2.0, FORMATS.md §5 B2) from a
    PostgreSQL capture. It is not plain Debezium: a Debezium 1.4 envelope without `transaction`,
    `ts_us`, `sequence` or `xmin`, the after struct named "data", CDL's string types for
    timestamps and decimals, and the CDL fields message_version, message_type, LOB_COLUMNS and
    unique; `db` is source.db, `server_name` source.name."""
    def message(run: CdlRun, shape: CdlShape, event: Event, op: str, before: Row | None, after: Row | None,
                now_ms: int) -> str:
        return _cdl_v2_message(shape, event, op, before, after, now_ms, db, server_name)

    return _cdl_render(capture, topic, partitions, seed, "2.0", message, heartbeats, heartbeat_every, job_id)


_CDL_OPS = {"INSERT": "c", "UPDATE": "u", "DELETE": "d"}


def _cdl_v2_message(shape: CdlShape, event: Event, op: str, before: Row | None, after: Row | None, now_ms: int,
                    db: str, server_name: str) -> str:
    """Payload and schema in the example's order (no HEARTBEAT_IDENTIFIER: the example has none)."""
    row = after if after is not None else before
    assert row is not None
    source = {"version": CDL_DEBEZIUM_VERSION, "connector": "postgresql", "name": server_name,
              "ts_ms": (event.ts_us or event.ts * 1_000_000) // 1000, "snapshot": "false", "db": db,
              "schema": shape.schema.schema or "public", "table": shape.schema.name, "txId": event.xid,
              "lsn": event.lsn}
    payload = {"before": shape.image(before), "after": shape.image(after), "source": source, "op": _CDL_OPS[op],
               "ts_ms": now_ms, "message_version": "2.0", "message_type": "0", "LOB_COLUMNS": shape.lob_columns,
               "unique": shape.unique(row)}
    s = plain
    snapshot = connect_schema("string", True, name="io.debezium.data.Enum", version=1,
                              parameters={"allowed": "true,last,false"}, default="false")
    source_fields = [member(n, s(t, False)) for n, t in (("version", "string"), ("connector", "string"),
                                                         ("name", "string"), ("ts_ms", "int64"))]
    source_fields += [member("snapshot", snapshot)]
    source_fields += [member(n, s("string", False)) for n in ("db", "schema", "table")]
    source_fields += [member("txId", s("int64", True)), member("lsn", s("int64", True))]
    fields = [shape.row_schema("before", "before"), shape.row_schema("data", "after"),
              member("source", connect_schema("struct", False, name="io.debezium.connector.postgresql.Source",
                                              fields=source_fields)),
              member("op", s("string", False)), member("ts_ms", s("int64", False)),
              member("message_version", s("string", False)), member("message_type", s("string", False)),
              member("LOB_COLUMNS", s("string", True)), shape.unique_schema()]
    return dumps({"schema": connect_schema("struct", False, name=shape.full_name, fields=fields), "payload": payload})
