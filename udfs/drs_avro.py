"""Huawei DRS Avro -> JSON, with fastavro (UDF `cdc_decode_drs_avro(value_base64, schema_paths)`).

A DRS Avro Kafka value is Avro *single-object encoding*: the marker `C3 01`, the 8-byte
little-endian CRC-64-AVRO (Rabin) fingerprint of the writer schema's Parsing Canonical Form,
then the datum (inferred from Huawei's sample decoder, `Record.getDecoder().decode(bytes)`).
A raw datum without that header is accepted too.

The writer schema is not public. `schema_paths` is the JSON array of the `.avsc` files the
project configures (dbt var `cdc_drs_avro_schemas`; `package:NAME` names a schema shipped in
`udfs/schemas/drs_avro/`, the default being the RECONSTRUCTED `Record.reconstructed.avsc`;
relative paths are resolved against the current directory, the macro makes project paths
absolute). A single-object message is read with the configured schema of its fingerprint;
a raw datum with the first configured schema that reads it and consumes every byte.

The result is one JSON object, every value text or null:
`{"framing", "fingerprint", "schema", "version", "seqno", "shardId", "eventid",
  "updateTimestamp", "eventMs", "tableName", "operation", "columnCount", "fields", "types",
  "before", "after", "ddl", "error"}`
`fields` are the column names, `types` their types when the schema's field records carry
one (else null), `before`/`after` the images positional with `fields` (null when absent),
each value the canonical text of what the schema says it is (see `canonical`). `eventMs` is
`updateTimestamp` as epoch milliseconds, `ddl` the DDL statement when the message carries
one (see `_ddl_text`). Bad input yields `{"error": "..."}` saying why; never raises.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import math
import os
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID

import pyarrow as pa

from udfs import arrow
from udfs.canonical import fraction, plain_float

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

MARKER = b"\xc3\x01"
HEADER_BYTES = 10
SCHEMA_DIR = Path(__file__).resolve().parent / "schemas" / "drs_avro"
PACKAGE_PREFIX = "package:"
DEFAULT_SCHEMA = PACKAGE_PREFIX + "Record.reconstructed.avsc"
TOP_LEVEL = ("version", "seqno", "shardId", "eventid", "updateTimestamp", "tableName", "operation",
             "columnCount")
# members of a `fields` element that may hold the column type, in the order tried
TYPE_MEMBERS = ("type", "dataType", "columnType", "typeName", "dataTypeNumber")
# top-level fields that may hold a DDL statement, in the order tried
DDL_MEMBERS = ("sql", "ddl", "ddlText", "ddlSql")


@dataclass(frozen=True)
class WriterSchema:
    path: str
    parsed: Any  # a fastavro parsed schema
    fingerprint: str  # hex of the 8 fingerprint bytes as a single-object header carries them


def fingerprint(parsed: Any) -> str:
    """CRC-64-AVRO of the schema's Parsing Canonical Form, as the little-endian bytes of a
    single-object header in hex (the Avro spec's `"int"` = 0x7275d51a3f395c8f -> 8f5c393f1ad57572)."""
    from fastavro.schema import fingerprint as avro_fingerprint, to_parsing_canonical_form

    return avro_fingerprint(to_parsing_canonical_form(parsed), "CRC-64-AVRO")


def resolve_path(path: str) -> Path:
    if path.startswith(PACKAGE_PREFIX):
        return SCHEMA_DIR / path[len(PACKAGE_PREFIX):]
    return Path(os.path.abspath(os.path.expanduser(path)))


def schema_list(spec: str | None) -> list[str]:
    """The schema paths of a `schema_paths` argument: a JSON array, one path, or empty (the default)."""
    text = (spec or "").strip()
    if text.startswith("["):  # noqa: SIM108 - the one-line form nests two conditional expressions
        paths = [str(p) for p in json.loads(text) if str(p).strip()]
    else:
        paths = [text] if text else []
    return paths or [DEFAULT_SCHEMA]


def load_schema(path: str) -> WriterSchema:
    from fastavro.schema import parse_schema

    parsed = parse_schema(json.loads(resolve_path(path).read_text(encoding="utf-8")))
    return WriterSchema(path, parsed, fingerprint(parsed))


def _load_all(spec: str | None) -> list[WriterSchema] | str:
    try:
        paths = schema_list(spec)
    except (ValueError, TypeError, RecursionError) as exc:  # RecursionError: JSON nested too deeply
        return f"schema_paths is not a JSON array of paths ({exc})"
    loaded: list[WriterSchema] = []
    for path in paths:
        try:
            loaded.append(load_schema(path))
        except Exception as exc:  # unreadable file, bad JSON, invalid Avro schema
            return (f"schema file {path} ({resolve_path(path)}) cannot be read: "
                    f"{type(exc).__name__}: {str(exc)[:300]}")
    return loaded


_cache: dict[str, list[WriterSchema] | str] = {}


def schemas(spec: str | None) -> list[WriterSchema] | str:
    """The configured writer schemas, parsed once per worker (cached by `spec`); or the
    error text when one cannot be read (then every message is a reject naming it)."""
    key = spec or ""
    if key not in _cache:
        _cache[key] = _load_all(spec)
    return _cache[key]


# ---------------------------------------------------------------------------- canonical text

def _temporal(value: datetime | date | time) -> str:
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            utc = value.astimezone(UTC)
            return utc.strftime("%Y-%m-%dT%H:%M:%S") + fraction(utc.microsecond) + "Z"
        return value.strftime("%Y-%m-%dT%H:%M:%S") + fraction(value.microsecond)
    if isinstance(value, date):
        return value.isoformat()
    return value.strftime("%H:%M:%S") + fraction(value.microsecond)


def _json(value: Any) -> str:
    """Compact JSON of a decoded Avro value: numbers exact, bytes base64, temporal ISO text."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return plain_float(value) if math.isfinite(value) else json.dumps(plain_float(value))
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(str(k), ensure_ascii=False) + ":" + _json(v) for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_json(v) for v in value) + "]"
    return json.dumps(canonical(value), ensure_ascii=False)


def canonical(value: Any) -> str | None:
    """Canonical text of one decoded Avro value (DESIGN §4.3): string as is, bytes/fixed as
    base64, int/long as digits, float/double as the shortest plain digits, boolean true/false,
    decimal exact at its scale, timestamp-* ISO-8601 UTC (`Z`; local-timestamp-* without),
    date yyyy-mm-dd, time hh:mm:ss[.f], enum its symbol, uuid its text, records, maps and
    arrays compact JSON; null -> None."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return plain_float(value)
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (datetime, date, time)):
        return _temporal(value)
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, (dict, list, tuple)):
        return _json(value)
    return str(value)


def image_value(element: Any) -> str | None:
    """A column of an image: null, or a record whose `value` member is the value."""
    if isinstance(element, dict) and "value" in element:
        return canonical(element["value"])
    return canonical(element)


# ---------------------------------------------------------------------------- the record

def _images(value: Any) -> list[str | None] | None:
    return [image_value(e) for e in value] if isinstance(value, (list, tuple)) else None


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)


def _event_ms(value: Any) -> int | None:
    """updateTimestamp as epoch ms: a number or digits (ms), or a timestamp logical type."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    if isinstance(value, datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        return (aware - _EPOCH) // _MS
    return None


def _ddl_text(record: dict[str, Any], fields: Any) -> str | None:
    """The DDL statement: a top-level `sql`/`ddl` string, else `afterImages` when it is a
    string (as in DTS Avro), else the value of the first element of `afterImages` when the
    message has no fields (GUESS for the reconstructed schema)."""
    for name in DDL_MEMBERS:
        if isinstance(record.get(name), str) and record[name].strip():
            return record[name]
    after = record.get("afterImages")
    if isinstance(after, str):
        return after
    if not fields and isinstance(after, (list, tuple)):
        values = [v for v in (_images(after) or []) if v is not None]
        return values[0] if values else None
    return None


def summary(record: dict[str, Any], framing: str, schema: WriterSchema) -> dict[str, Any]:
    fields = record.get("fields")
    elements = list(fields) if isinstance(fields, (list, tuple)) else None
    names = types = None
    if elements is not None:
        names = [canonical(e.get("name")) if isinstance(e, dict) else canonical(e) for e in elements]
        member = next((m for m in TYPE_MEMBERS if any(isinstance(e, dict) and m in e for e in elements)), None)
        if member is not None:
            types = [canonical(e.get(member)) if isinstance(e, dict) else None for e in elements]
    out: dict[str, Any] = {"framing": framing, "fingerprint": schema.fingerprint, "schema": schema.path}
    out.update({name: canonical(record.get(name)) for name in TOP_LEVEL})
    out.update({
        "eventMs": _event_ms(record.get("updateTimestamp")),
        "fields": names,
        "types": types,
        "before": _images(record.get("beforeImages")),
        "after": _images(record.get("afterImages")),
        "ddl": _ddl_text(record, elements),
        "error": None,
    })
    return out


# ---------------------------------------------------------------------------- decoding

def _read(data: bytes, schema: WriterSchema) -> tuple[Any, int]:
    """The datum of `data` read with `schema`, and how many bytes it took."""
    from fastavro import schemaless_reader

    stream = io.BytesIO(data)
    return schemaless_reader(stream, schema.parsed, None), stream.tell()


def _why(exc: Exception) -> str:
    kind = "truncated" if isinstance(exc, EOFError) else "unreadable"
    return f"datum {kind} ({type(exc).__name__}: {str(exc)[:200]})"


def _failure(reason: str, **extra: Any) -> str:
    return json.dumps({**extra, "error": reason}, ensure_ascii=False)


def decode(data: bytes, configured: list[WriterSchema]) -> str:
    """The JSON summary of one DRS Avro value (bytes)."""
    if data.startswith(MARKER):
        if len(data) < HEADER_BYTES:
            return _failure(f"Avro single-object header truncated ({len(data)} bytes, needs {HEADER_BYTES})")
        fp = data[2:HEADER_BYTES].hex()
        schema = next((s for s in configured if s.fingerprint == fp), None)
        if schema is None:
            known = ", ".join(f"{s.path} = {s.fingerprint}" for s in configured)
            return _failure(f"writer schema fingerprint {fp} matches no configured schema ({known})",
                            fingerprint=fp)
        try:
            record, used = _read(data[HEADER_BYTES:], schema)
        except Exception as exc:  # fastavro raises EOFError, ValueError, UnicodeDecodeError, ...
            return _failure(f"{_why(exc)} with schema {schema.path}", fingerprint=fp, schema=schema.path)
        if used != len(data) - HEADER_BYTES:
            return _failure(f"{len(data) - HEADER_BYTES - used} bytes left after the datum "
                            f"(schema {schema.path})", fingerprint=fp, schema=schema.path)
        framing = "single-object"
    else:
        failures = []
        for schema in configured:
            try:
                record, used = _read(data, schema)
            except Exception as exc:
                failures.append(f"{schema.path}: {_why(exc)}")
                continue
            if used == len(data):
                break
            failures.append(f"{schema.path}: {len(data) - used} bytes left after the datum")
        else:
            return _failure(f"not Avro single-object encoding (starts with {data[:2].hex() or 'nothing'}, "
                            f"not c301) and no configured schema reads it as one raw datum: "
                            + "; ".join(failures))
        framing = "raw"
    if not isinstance(record, dict):
        return _failure(f"the datum is a {type(record).__name__}, not a record (schema {schema.path})")
    try:
        return json.dumps(summary(record, framing, schema), ensure_ascii=False)
    except Exception as exc:  # a value no rule renders (should not happen)
        return _failure(f"cannot render the record ({type(exc).__name__}: {str(exc)[:200]})")


def decode_drs_avro(value_base64: str | None, schema_paths: str | None) -> str:
    """The JSON summary of one base64 Kafka value; never raises."""
    if value_base64 is None or not value_base64.strip():
        return _failure("value is empty")
    try:
        data = base64.b64decode("".join(value_base64.split()), validate=True)
    except (binascii.Error, ValueError) as exc:
        return _failure(f"value is not base64 ({exc})")
    configured = schemas(schema_paths)
    if isinstance(configured, str):
        return _failure(configured)
    return decode(data, configured)


decode_drs_avro_arrays = arrow.row_wise(decode_drs_avro, pa.string())


def register(spark: SparkSession) -> None:
    decode_drs_avro_arrays.register(spark, "cdc_decode_drs_avro")
