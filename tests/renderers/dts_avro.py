"""Render a synth.Stream as Alibaba DTS Avro records (one raw Avro datum per Kafka value).

As DTS does: one Record per row change, partitions by primary-key hash; `tags.pk_uk_info`
names the key (`{"PRIMARY": [...]}`, `{}` for the unkeyed `events`); images positional with
`fields` (order_lines lists its fields in reverse catalog order, which DTS allows);
`sourceTimestamp` (s) and `sourcePosition` (`offset@fileindex`) increase with the true order,
so the decoder's sort_key orders across partitions. A TRUNCATE is a DDL record whose
`afterImages` is the statement. Values by column type: bigint/int Integer, varchar/text
Character utf8mb4, decimal Decimal, double Float, varbinary BinaryObject, datetime DateTime;
NULLs alternate between Avro null and EmptyObject NULL. DateTime values decode to
`yyyy-mm-ddThh:mm:ss`, so `expected_state` is `synth.fold` with `created` in that form.
"""

from __future__ import annotations

import base64
import io
import json
from datetime import datetime
from typing import Any

import synth
from synth import COLUMNS, TABLES, Record, Row, Stream

NS = "com.alibaba.dts.formats.avro."
# MySQL binlog column type codes (FORMATS.md §8 E1)
_TYPE_NUMBERS = {"bigint": 8, "int": 3, "varchar": 15, "text": 252, "decimal": 246, "double": 5,
                 "varbinary": 15, "datetime": 18}
_FILE_INDEX = 7


def encode(record: dict[str, Any], version: str = "2020") -> bytes:
    """One Record as a raw Avro datum with the schema of `version` ("2020" or "2019");
    union values as (full type name, datum) tuples, e.g. value("Integer", {...})."""
    import fastavro

    from udfs.dts_avro import schemas

    out = io.BytesIO()
    fastavro.schemaless_writer(out, schemas()[version], record)
    return out.getvalue()


def value(branch: str, datum: Any) -> tuple[str, Any]:
    """A value of an image union, by its short branch name."""
    return (NS + branch, datum)


def record(operation: str, object_name: str | None, fields: list[tuple[str, int]] | None,
           before: Any = None, after: Any = None, *, source_ts: int = 1_700_000_000,
           position: str = "4@1", record_id: int = 1, txid: str = "", pk: list[str] | None = None,
           tags: dict[str, str] | None = None, source_type: str = "MySQL", born_ms: int = 0,
           process_ts: list[int] | None = None) -> dict[str, Any]:
    """A Record datum with defaults for what a test does not care about."""
    all_tags = dict(tags or {})
    if pk is not None:
        all_tags["pk_uk_info"] = json.dumps({"PRIMARY": pk})
    return {
        "version": 1, "id": record_id, "sourceTimestamp": source_ts, "sourcePosition": position,
        "safeSourcePosition": position, "sourceTxid": txid,
        "source": {"sourceType": source_type, "version": "8.0.32"}, "operation": operation,
        "objectName": object_name, "processTimestamps": process_ts, "tags": all_tags,
        "fields": None if fields is None else [{"name": n, "dataTypeNumber": t} for n, t in fields],
        "beforeImages": before, "afterImages": after, "bornTimestamp": born_ms,
    }


def _base(column_type: str) -> str:
    return column_type.split("(", 1)[0]


def _value(column_type: str, text: str | None, null_branch: bool) -> Any:
    if text is None:
        return value("EmptyObject", "NULL") if null_branch else None
    base = _base(column_type)
    if base in ("bigint", "int"):
        return value("Integer", {"precision": 20 if base == "bigint" else 11, "value": text})
    if base == "decimal":
        precision, scale = column_type[len("decimal("):-1].split(",")
        return value("Decimal", {"value": text, "precision": int(precision), "scale": int(scale)})
    if base == "double":
        return value("Float", {"value": float(text), "precision": 22, "scale": 31})
    if base == "varbinary":
        return value("BinaryObject", {"type": "BINARY", "value": base64.b64decode(text)})
    if base == "datetime":
        t = datetime.strptime(text, "%Y-%m-%d %H:%M:%S")
        return value("DateTime", {"year": t.year, "month": t.month, "day": t.day, "hour": t.hour,
                                  "minute": t.minute, "second": t.second, "millis": 0})
    return value("Character", {"charset": "utf8mb4", "value": text.encode("utf-8")})


def _columns(table: str) -> list[str]:
    columns = list(COLUMNS[table])
    return columns[::-1] if table == "order_lines" else columns


def _image(table: str, row: Row | None, columns: list[str]) -> list[Any] | None:
    if row is None:
        return None
    return [_value(COLUMNS[table][c], row[c], i % 2 == 1) for i, c in enumerate(columns)]


def render(stream: Stream, topic: str, partitions: int = 3, start_s: int = 1_700_000_000) -> list[Record]:
    """Kafka records of `stream` as DTS Avro (see the module docstring)."""
    offsets = [0] * partitions
    records: list[Record] = []
    position = 0
    for seq, change in enumerate(stream.changes, start=1):
        source_ts = start_s + seq
        columns = _columns(change.table)
        fields = [(c, _TYPE_NUMBERS[_base(COLUMNS[change.table][c])]) for c in columns]
        pk_tag = {"pk_uk_info": json.dumps({"PRIMARY": TABLES[change.table]} if TABLES[change.table] else {})}
        name = f"{stream.db}.{change.table}"
        if change.op == "TRUNCATE":
            rows: list[tuple[Row | None, Row | None]] = [(None, None)]
        else:
            rows = change.rows
        for before, after in rows:
            position += 1
            common = {"source_ts": source_ts, "position": f"{1000 + position * 100}@{_FILE_INDEX}",
                      "record_id": position, "txid": str(seq), "tags": pk_tag,
                      "born_ms": source_ts * 1000, "process_ts": [source_ts * 1000 + 120]}
            if change.op == "TRUNCATE":
                datum = record("DDL", name, None, None, f"TRUNCATE TABLE `{stream.db}`.`{change.table}`", **common)
            else:
                datum = record(change.op, name, fields, _image(change.table, before, columns),
                               _image(change.table, after, columns), **common)
            part = synth.partition_of(change.table, after if after is not None else before, partitions)
            records.append(Record.of_bytes(topic, part, offsets[part], source_ts * 1000 + 500, encode(datum)))
            offsets[part] += 1
    return records


def expected_state(stream: Stream) -> dict[tuple[str, str], tuple[Row, int]]:
    """`synth.fold(stream)` as gold holds it for this format: DATETIME as `yyyy-mm-ddThh:mm:ss`."""
    datetimes = {t: [c for c, ty in cols.items() if _base(ty) == "datetime"] for t, cols in COLUMNS.items()}
    out = {}
    for (table_id, row_key), (row, count) in synth.fold(stream).items():
        table = table_id.rsplit(".", 1)[-1]
        out[(table_id, row_key)] = ({c: (v.replace(" ", "T") if c in datetimes[table] and v is not None else v)
                                     for c, v in row.items()}, count)
    return out
