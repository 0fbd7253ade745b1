"""Gold against the database: each table of `gold.cdc_current_rows` compared with
`SELECT *` of the source table after the workload, value by value by column type.

A gold value is canonical text (DESIGN §4.3); it matches a database value when it is that
value read back by the column's type: integers and decimals exactly (digits only, no
exponent), FLOAT as the same single-precision number, binary as base64 of the very bytes
(BINARY(n) with its trailing zero bytes), temporal values as the same date, date-time,
instant or duration, JSON as the document without its insignificant whitespace, text
exactly. Columns that the table no longer has are not compared.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import re
import struct
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from realdb.model import Column, Row, TableSchema, Value

Comparable = Any


@dataclass
class Mismatch:
    table: str
    key: str
    column: str
    expected: Any
    actual: Any

    def __str__(self) -> str:
        return f"{self.table} {self.key} {self.column}: expected {self.expected!r}, got {self.actual!r}"


@dataclass
class TableResult:
    table: str
    rows_expected: int
    rows_actual: int
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def exact(self) -> bool:
        return not self.mismatches


def compact_json(text: str) -> str:
    """The document without whitespace outside strings (every scalar as written)."""
    out, in_string, escaped = [], False, False
    for ch in text:
        if in_string:
            out.append(ch)
            escaped = not escaped and ch == "\\"
            in_string = escaped or ch != '"'
        elif ch == '"':
            in_string = True
            out.append(ch)
        elif ch not in " \t\r\n":
            out.append(ch)
    return "".join(out)


def _base(column_type: str) -> str:
    return re.sub(r"\(.*", "", column_type.lower()).replace(" unsigned", "").replace(" zerofill", "").strip()


def _float32(value: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", value))[0])


_TIME = re.compile(r"(-)?(\d+):(\d{2}):(\d{2})(?:\.(\d{1,9}))?")


def _duration(text: str) -> dt.timedelta:
    match = _TIME.fullmatch(text)
    if not match:
        raise ValueError(f"not a duration: {text!r}")
    sign, hours, minutes, seconds, fraction = match.groups()
    micros = int(((fraction or "") + "000000")[:6])
    total = dt.timedelta(hours=int(hours), minutes=int(minutes), seconds=int(seconds), microseconds=micros)
    return -total if sign else total


def _datetime(text: str) -> dt.datetime:
    """A date-time as written (`T` or a blank between date and time); an instant with a
    zone (Z, +00, +08:00) is taken to its UTC wall clock."""
    parsed = dt.datetime.fromisoformat(text.replace("Z", "+00:00").replace(" ", "T", 1))
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(dt.UTC).replace(tzinfo=None)
    return parsed


def _date(text: str) -> dt.date:
    """A date; a vendor without a DATE type (DataWorks) sends midnight UTC of it."""
    if len(text) == 10:
        return dt.date.fromisoformat(text)
    moment = _datetime(text)
    if moment.time() != dt.time(0):
        raise ValueError(f"not a date: {text!r}")
    return moment.date()


def _exact_decimal(text: str) -> Decimal:
    if not re.fullmatch(r"-?\d+(\.\d+)?", text):
        raise ValueError(f"not plain digits: {text!r}")
    return Decimal(text)


def readers(column: Column) -> tuple[Callable[[Value], Comparable], Callable[[str], Comparable]]:
    """(database value -> comparable, gold text -> comparable) for the column's type."""
    base = _base(column.type)
    ident: Callable[[Any], Any] = lambda v: v  # noqa: E731
    if base in ("tinyint", "smallint", "mediumint", "int", "integer", "bigint", "year", "serial", "bigserial"):
        return int, int
    if base == "bit":
        # BIT(1) is a boolean to Debezium and DataWorks: true/false are 1/0
        return ((lambda v: int.from_bytes(v, "big") if isinstance(v, bytes) else int(v)),
                (lambda t: 1 if t == "true" else 0 if t == "false" else int(t)))
    if base in ("decimal", "numeric", "dec", "fixed"):
        return Decimal, _exact_decimal
    if base in ("float", "real"):
        return (lambda v: _float32(float(v))), (lambda t: _float32(float(t)))
    if base in ("double", "double precision"):
        return float, float
    if base in ("binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob", "bytea"):
        return bytes, (lambda t: base64.b64decode(t, validate=True))
    if base in ("json", "jsonb"):
        return (lambda v: compact_json(str(v))), ident
    if base == "date":
        return ident, _date
    if base in ("datetime", "timestamp", "timestamp without time zone", "timestamp with time zone", "timestamptz"):
        return (lambda v: v.astimezone(dt.UTC).replace(tzinfo=None) if v.tzinfo else v), _datetime
    if base in ("time", "time without time zone"):
        return (lambda v: v if isinstance(v, dt.timedelta) else
                dt.timedelta(hours=v.hour, minutes=v.minute, seconds=v.second, microseconds=v.microsecond)), _duration
    if base == "boolean":
        return bool, (lambda t: {"true": True, "t": True, "1": True, "false": False, "f": False, "0": False}[t])
    return str, str


def _read(reader: Callable[[Any], Comparable], value: Any) -> Comparable:
    if value is None:
        return None
    try:
        return reader(value)
    except (ValueError, TypeError, KeyError, InvalidOperation, struct.error) as exc:
        return f"<unreadable {value!r}: {exc}>"


def _expected_rows(schema: TableSchema, rows: list[Row]) -> list[tuple[Comparable, ...]]:
    funcs = [readers(c)[0] for c in schema.columns]
    return [tuple(_read(f, row.get(c.name)) for f, c in zip(funcs, schema.columns, strict=True)) for row in rows]


def _actual_rows(schema: TableSchema, gold: list[tuple[dict[str, str | None], int]]) -> list[tuple[Comparable, ...]]:
    funcs = [readers(c)[1] for c in schema.columns]
    out = []
    for row, count in gold:
        out.extend([tuple(_read(f, row.get(c.name)) for f, c in zip(funcs, schema.columns, strict=True))] * count)
    return out


def _key_text(schema: TableSchema, row: tuple[Comparable, ...]) -> str:
    names = [c.name for c in schema.columns]
    if schema.pk:
        return json.dumps([str(row[names.index(k)]) for k in schema.pk], ensure_ascii=False)
    return "(row) " + repr(row)[:120]


def without_columns(schema: TableSchema, lost: dict[str, str]) -> TableSchema:
    """The schema without the columns whose type matches a pattern of `lost` (a type the
    vendor cannot carry exactly: pattern -> why); key columns stay."""
    kept = tuple(c for c in schema.columns
                 if c.name in schema.pk or not any(re.fullmatch(p, c.type.lower()) for p in lost))
    return TableSchema(schema.db, schema.name, kept, schema.pk, schema.schema)


def compare_table(label: str, schema: TableSchema, expected_rows: list[Row],
                  gold: list[tuple[dict[str, str | None], int]]) -> TableResult:
    """Expected and gold rows paired by key (keyed tables) or as multisets (without a key)."""
    expected = _expected_rows(schema, expected_rows)
    actual = _actual_rows(schema, gold)
    result = TableResult(label, len(expected), len(actual))
    names = [c.name for c in schema.columns]
    if schema.pk:
        at = [names.index(k) for k in schema.pk]
        exp_by_key = {tuple(r[i] for i in at): r for r in expected}
        act_by_key = {tuple(r[i] for i in at): r for r in actual}
        for key in sorted(set(exp_by_key) | set(act_by_key), key=repr):
            e, a = exp_by_key.get(key), act_by_key.get(key)
            if e is None or a is None:
                result.mismatches.append(Mismatch(label, repr(key), "(row)", e and "present", a and "present"))
                continue
            for name, ev, av in zip(names, e, a, strict=True):
                if ev != av:
                    result.mismatches.append(Mismatch(label, repr(key), name, ev, av))
        if len(actual) != len(act_by_key):
            result.mismatches.append(Mismatch(label, "-", "(row_count)", len(act_by_key), len(actual)))
        return result
    missing = Counter(expected) - Counter(actual)
    extra = Counter(actual) - Counter(expected)
    for row, n in missing.items():
        result.mismatches.append(Mismatch(label, _key_text(schema, row), "(row)", f"{n} copies", "missing"))
    for row, n in extra.items():
        result.mismatches.append(Mismatch(label, _key_text(schema, row), "(row)", "absent", f"{n} extra copies"))
    return result
