"""Alibaba DTS Avro -> JSON, with fastavro (UDF `cdc_decode_dts_avro(value_base64)`).

A DTS Kafka value is ONE raw Avro binary datum of `com.alibaba.dts.formats.avro.Record`
(no container, no Confluent or single-object header). Two schema versions exist
(udfs/schemas/dts_avro/, copied from LioRoger/subscribe_example): the 2020 one adds a
trailing `bornTimestamp`. A value is read with the 2020 schema; when that fails or leaves
bytes unread, it is read with the 2019 schema as writer and the 2020 one as reader
(`bornTimestamp` = 0), which must consume every byte. A 48-byte value that is not a whole
Record is a NOOP filler (the vendor's demo skips 48-byte messages).

The result is one JSON object:

`{"schema_version": "2020"|"2019"|null, "version", "id" (text), "sourceTimestamp" (s),
  "sourcePosition", "safeSourcePosition", "sourceTxid", "sourceType", "sourceVersion",
  "operation", "objectName", "processTimestamps", "tags", "bornTimestamp" (ms),
  "fields": [{"name", "dataTypeNumber"}] | null,
  "before" / "after": [canonical text | null, ...] | null  (positional, like `fields`),
  "beforeTypes" / "afterTypes": [value type | null, ...] | null,
  "beforeMissing" / "afterMissing": [positions of EmptyObject NONE (value not logged)],
  "ddl": the statement when `afterImages` is a string, "noop": true for a 48-byte filler,
  "error": null | why the value could not be read}`

Canonical text of a value, by union branch (DESIGN §4.3, FORMATS.md §8 E1):
- Integer: its digits as sent. Decimal: its text as sent (an exponent up to 131072 is written out).
- Character: the bytes decoded with the MySQL charset (utf8/utf8mb3/utf8mb4 UTF-8, latin1
  as MySQL's cp1252, gbk, gb2312, gb18030, big5, ucs2/utf16 big-endian, utf32 ...); the
  charset `binary`, an unknown charset or bytes invalid in it: base64 of the bytes, and the
  value type says `Character:<charset>:base64`.
- Float: the shortest text that reads back as the same double (Python repr), written
  without an exponent, an integral value without ".0" ("3", "12510357", "0.00001");
  NaN, Infinity, -Infinity as such.
- Timestamp: ISO-8601 UTC instant `yyyy-mm-ddThh:mm:ss[.ffffff]Z`; `millis` is the
  MICROSECOND fraction; the fraction keeps its significant digits (as cdc_iso_instant).
- DateTime: DATE `yyyy-mm-dd`, TIME `[-]hh:mm:ss[.ffffff]` (hours may exceed 24; negative
  when a part is negative), DATETIME `yyyy-mm-ddThh:mm:ss[.ffffff]` (wall clock, no zone),
  YEAR `yyyy`; `millis` = microseconds, significant digits only.
- TimestampWithTimeZone: the DateTime text followed by its zone: an offset (`+08:00`,
  `-0500`, `+8`) as `+hh:mm`, `Z`/`UTC`/`GMT` as `Z`, a region name after a space
  (`2024-01-02T03:04:05 Asia/Shanghai`).
- BinaryGeometry, BinaryObject: base64 of the bytes (one line); a BinaryObject of a text
  type (TEXT, TINYTEXT, MEDIUMTEXT, LONGTEXT, JSON) its UTF-8 text. TextGeometry: the text.
  TextObject: the text; type JSON compacted (whitespace outside strings removed, digits kept).
- EmptyObject NULL and Avro null: SQL NULL. EmptyObject NONE: absent (partial image).

The function never raises: bad input gives `{"error": "..."}`.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pyarrow as pa

from udfs import arrow
from udfs.canonical import fraction, plain_float

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas" / "dts_avro"
SCHEMA_FILES = {"2020": "Record.avsc", "2019": "Record.2019-11-14.avsc"}
NOOP_LENGTH = 48
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_OFFSET = re.compile(r"^(?:UTC|GMT)?([+-])(\d{1,2}):?(\d{2})?$")
_EXPONENT = re.compile(r"[eE]")
# the largest exponent a Decimal's text is written out with: PostgreSQL's numeric holds 131072
# digits before the point (MySQL 65); a larger one is kept as sent (1E+999999999 would be a
# billion digits)
_MAX_EXPONENT = 131072

# MySQL charset names -> Python codecs (None: not text, always base64)
_CHARSETS: dict[str, str | None] = {
    "utf8": "utf-8", "utf8mb3": "utf-8", "utf8mb4": "utf-8", "al32utf8": "utf-8", "utf-8": "utf-8",
    "latin1": "mysql-latin1", "ascii": "ascii", "binary": None,
    "gbk": "gbk", "gb2312": "gb2312", "gb18030": "gb18030", "big5": "big5",
    "ucs2": "utf-16-be", "utf16": "utf-16-be", "utf16le": "utf-16-le", "utf32": "utf-32-be",
    "ujis": "euc_jp", "eucjpms": "euc_jp", "sjis": "shift_jis", "cp932": "cp932", "euckr": "euc_kr",
    "latin2": "iso8859_2", "latin5": "iso8859_9", "latin7": "iso8859_13", "greek": "iso8859_7",
    "hebrew": "iso8859_8", "koi8r": "koi8_r", "koi8u": "koi8_u", "tis620": "tis_620",
    "macroman": "mac_roman", "macce": "mac_latin2", "cp850": "cp850", "cp852": "cp852", "cp866": "cp866",
    "cp1250": "cp1250", "cp1251": "cp1251", "cp1256": "cp1256", "cp1257": "cp1257",
    "zhs16gbk": "gbk", "zhs32gb18030": "gb18030",
}


@cache
def schemas() -> dict[str, Any]:
    """The parsed Record schema of each version (parsed once per Python worker).

    A schema file is a JSON array of named types, the Record last; each is parsed with
    the names defined before it."""
    import fastavro

    parsed = {}
    for version, name in SCHEMA_FILES.items():
        named: dict[str, Any] = {}
        for named_type in json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8")):
            record = fastavro.parse_schema(named_type, named)
        parsed[version] = record
    return parsed


# ---------------------------------------------------------------------------- values


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _mysql_latin1(data: bytes) -> str:
    """MySQL latin1 is cp1252 with its five undefined bytes mapped to U+0081.. (as latin-1)."""
    return "".join(bytes([b]).decode("cp1252", errors="ignore") or chr(b) for b in data)


def _character(charset: str, data: bytes) -> tuple[str, str]:
    name = (charset or "").strip().lower()
    codec = _CHARSETS.get(name, name or "utf-8")
    if codec is not None:
        try:
            if codec == "mysql-latin1":
                return _mysql_latin1(data), f"Character:{charset}"
            return data.decode(codec), f"Character:{charset}"
        except (LookupError, UnicodeDecodeError):
            pass
    return _b64(data), f"Character:{charset}:base64"


def _decimal(text: str) -> str:
    if _EXPONENT.search(text):
        try:
            value = Decimal(text)
        except InvalidOperation:
            return text
        return format(value, "f") if abs(value.adjusted()) <= _MAX_EXPONENT else text
    return text


def _timestamp(seconds: int, micros: int) -> str:
    instant = _EPOCH + timedelta(seconds=seconds, microseconds=micros)
    return instant.strftime("%Y-%m-%dT%H:%M:%S") + fraction(instant.microsecond) + "Z"


def _datetime(v: dict[str, Any]) -> str:
    year, month, day = v.get("year"), v.get("month"), v.get("day")
    hour, minute, second, micros = v.get("hour"), v.get("minute"), v.get("second"), v.get("millis")
    has_date = month is not None and day is not None
    has_time = hour is not None or minute is not None or second is not None
    date = f"{year or 0:04d}-{month:02d}-{day:02d}" if has_date else None
    if not has_time:
        if date is not None:
            return date
        if year is not None:
            return f"{year:04d}"
        raise ValueError("DateTime without any part")
    parts = [hour or 0, minute or 0, second or 0]
    negative = any(p < 0 for p in parts) or (micros or 0) < 0
    time = ("-" if negative and date is None else "") + \
        f"{abs(parts[0]):02d}:{abs(parts[1]):02d}:{abs(parts[2]):02d}" + fraction(micros)
    return f"{date}T{time}" if date is not None else time


def _zone(timezone_text: str) -> str:
    zone = (timezone_text or "").strip()
    if zone.upper() in ("Z", "UTC", "GMT", "+00:00"):
        return "Z"
    offset = _OFFSET.match(zone)
    if offset:
        sign, hours, minutes = offset.groups()
        return f"{sign}{int(hours):02d}:{minutes or '00'}"
    return f" {zone}" if zone else ""


def _compact_json(text: str) -> str:
    """JSON text without whitespace outside strings (numbers keep their digits); text
    that is not JSON, or nested too deeply for Python's reader, is returned as it is."""
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return text
    out, in_string, escaped = [], False, False
    for ch in text:
        if in_string:
            out.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
            out.append(ch)
        elif ch not in " \t\r\n":
            out.append(ch)
    return "".join(out)


# BinaryObject types that hold text: DTS sends MySQL TEXT columns (and MariaDB's JSON,
# which is LONGTEXT) as BinaryObject with one of these types (Alibaba's DTS demo reads
# them so); the bytes are the text in UTF-8.
_TEXT_OBJECTS = {"TEXT", "TINYTEXT", "MEDIUMTEXT", "LONGTEXT", "JSON"}


def _text_object(data: bytes, kind: str) -> tuple[str | None, str | None, bool]:
    """The text of a BinaryObject of a text type; base64 when the bytes are not UTF-8
    (the type then says so)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return _b64(data), f"BinaryObject:{kind}:not-utf8", False
    return (_compact_json(text) if kind.upper() == "JSON" else text), f"BinaryObject:{kind}", False


def canonical(value: Any) -> tuple[str | None, str | None, bool]:
    """(canonical text, value type, is_missing) of one image value as fastavro reads it
    with return_record_name=True: None or (branch full name, datum)."""
    if value is None:
        return None, None, False
    branch, datum = value
    branch = branch.rsplit(".", 1)[-1]
    if branch == "EmptyObject":
        return None, f"EmptyObject:{datum}", datum == "NONE"
    if branch == "Integer":
        return datum["value"], "Integer", False
    if branch == "Decimal":
        return _decimal(datum["value"]), "Decimal", False
    if branch == "Float":
        return plain_float(datum["value"]), "Float", False
    if branch == "Character":
        text, kind = _character(datum["charset"], datum["value"])
        return text, kind, False
    if branch == "Timestamp":
        return _timestamp(datum["timestamp"], datum["millis"]), "Timestamp", False
    if branch == "DateTime":
        return _datetime(datum), "DateTime", False
    if branch == "TimestampWithTimeZone":
        return _datetime(datum["value"]) + _zone(datum["timezone"]), "TimestampWithTimeZone", False
    if branch == "BinaryObject" and str(datum["type"]).upper() in _TEXT_OBJECTS:
        return _text_object(datum["value"], str(datum["type"]))
    if branch in ("BinaryGeometry", "BinaryObject"):
        return _b64(datum["value"]), f"{branch}:{datum['type']}", False
    if branch == "TextGeometry":
        return datum["value"], f"TextGeometry:{datum['type']}", False
    if branch == "TextObject":
        kind = datum["type"]
        text = _compact_json(datum["value"]) if str(kind).upper() == "JSON" else datum["value"]
        return text, f"TextObject:{kind}", False
    raise ValueError(f"unknown value branch {branch}")


def _image(values: Any, name: str) -> tuple[list | None, list | None, list[int]]:
    if not isinstance(values, list):
        return None, None, []
    texts, types, missing = [], [], []
    for i, value in enumerate(values):
        try:
            text, kind, absent = canonical(value)
        except (ValueError, OverflowError, KeyError, TypeError) as exc:
            raise ValueError(f"{name}[{i}]: {exc}") from exc
        texts.append(text)
        types.append(kind)
        if absent:
            missing.append(i)
    return texts, types, missing


# ---------------------------------------------------------------------------- records


def read_record(data: bytes) -> tuple[str, dict[str, Any]]:
    """(schema version, record) of one raw datum; ValueError when neither schema reads
    all of it."""
    import fastavro

    parsed = schemas()
    problems = []
    for version, reader in (("2020", None), ("2019", parsed["2020"])):
        buffer = io.BytesIO(data)
        try:
            record = fastavro.schemaless_reader(buffer, parsed[version], reader, return_record_name=True)
        except Exception as exc:  # fastavro raises EOFError, ValueError, IndexError ... on bad bytes
            problems.append(f"{version} schema: {type(exc).__name__} {str(exc)[:120]}".rstrip())
            continue
        if buffer.tell() == len(data):
            return version, cast(dict[str, Any], record)  # a record schema reads a dict
        problems.append(f"{version} schema: {len(data) - buffer.tell()} of {len(data)} bytes left unread")
    raise ValueError("; ".join(problems))


def summary(version: str, record: dict[str, Any]) -> dict[str, Any]:
    before, before_types, before_missing = _image(record.get("beforeImages"), "beforeImages")
    after, after_types, after_missing = _image(record.get("afterImages"), "afterImages")
    after_images = record.get("afterImages")
    source = record.get("source") or {}
    fields = record.get("fields")
    return {
        "schema_version": version,
        "version": record["version"],
        "id": str(record["id"]),
        "sourceTimestamp": record["sourceTimestamp"],
        "sourcePosition": record["sourcePosition"],
        "safeSourcePosition": record["safeSourcePosition"],
        "sourceTxid": record["sourceTxid"],
        "sourceType": source.get("sourceType"),
        "sourceVersion": source.get("version"),
        "operation": record["operation"],
        "objectName": record.get("objectName"),
        "processTimestamps": record.get("processTimestamps"),
        "tags": record.get("tags") or {},
        "bornTimestamp": record.get("bornTimestamp"),
        "fields": fields if isinstance(fields, list) else None,
        "before": before, "beforeTypes": before_types, "beforeMissing": before_missing,
        "after": after, "afterTypes": after_types, "afterMissing": after_missing,
        "ddl": after_images if isinstance(after_images, str) else None,
        "noop": False,
        "error": None,
    }


def decode_dts_avro(value_base64: str | None) -> str | None:
    """The JSON summary of one base64 DTS Avro value (NULL for NULL); never raises."""
    if value_base64 is None:
        return None
    try:
        data = base64.b64decode("".join(value_base64.split()), validate=True)
    except (binascii.Error, ValueError) as exc:
        return json.dumps({"error": f"not base64 ({exc})"})
    if not data:
        return json.dumps({"error": "empty value"})
    try:
        version, record = read_record(data)
    except ValueError as exc:
        if len(data) == NOOP_LENGTH:
            return json.dumps({"schema_version": None, "operation": "NOOP", "noop": True, "error": None})
        return json.dumps({"error": f"truncated or not a DTS Avro Record: {exc}"})
    try:
        return json.dumps(summary(version, record))
    except (ValueError, OverflowError, KeyError, TypeError) as exc:
        return json.dumps({"error": f"unreadable value in a DTS Avro Record: {exc}"})


decode_dts_avro_arrays = arrow.row_wise(decode_dts_avro, pa.string())


def register(spark: SparkSession) -> None:
    decode_dts_avro_arrays.register(spark, "cdc_decode_dts_avro")
