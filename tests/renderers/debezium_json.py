"""Render a synth.Stream as Debezium MySQL change events (JsonConverter).

As Debezium does: one message per row; the Kafka key is the primary key as a JSON object
(null for the unkeyed `events` table), partitions by key hash; a delete is followed by a
tombstone (keyed tables); an update that changes the key is a `d` of the old key, its
tombstone and a `c` of the new key; a TRUNCATE is one `t` message with a null key.
`source.file`/`pos`/`row` increase with the true order (one `pos` per statement, `row`
within it). Binary values are base64 text. With `schemas=True` every value and key carries
its Connect schema and decimals are Connect `Decimal` bytes (base64 of the big-endian
two's complement); without, decimals are strings (`decimal.handling.mode=string`).
DATETIME values are sent as text (a string column), so they fold to the synth text.
"""

from __future__ import annotations

import base64
import json
import re
from decimal import Decimal
from typing import Any

import synth
from synth import COLUMNS, TABLES, Record, Row, Stream

_BINLOG = "mysql-bin.000042"


def _connect_type(column_type: str) -> dict[str, Any]:
    base = column_type.split("(")[0]
    if base == "decimal":
        scale = re.search(r",\s*(\d+)\)", column_type)
        return {"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1,
                "parameters": {"scale": scale.group(1) if scale else "0"}}
    return {"bigint": {"type": "int64"}, "int": {"type": "int32"}, "double": {"type": "double"},
            "varbinary": {"type": "bytes"}}.get(base, {"type": "string"})


def _decimal_bytes(text: str, scale: int) -> str:
    unscaled = int(Decimal(text).scaleb(scale))
    length = max(1, (unscaled.bit_length() + 8) // 8)
    return base64.b64encode(unscaled.to_bytes(length, "big", signed=True)).decode("ascii")


def _value(column_type: str, value: str | None, schemas: bool) -> Any:
    if value is None:
        return None
    base = column_type.split("(")[0]
    if base in ("bigint", "int"):
        return int(value)
    if base == "double":
        return int(value) if re.fullmatch(r"-?\d+", value) else float(value)
    if base == "decimal" and schemas:
        return _decimal_bytes(value, int(_connect_type(column_type)["parameters"]["scale"]))
    return value


def _image(table: str, row: Row | None, schemas: bool) -> dict[str, Any] | None:
    if row is None:
        return None
    return {c: _value(COLUMNS[table][c], v, schemas) for c, v in row.items()}


def _struct(name: str, fields: list[tuple[str, dict[str, Any], bool]], field: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "struct", "name": name, "optional": True,
                           "fields": [{**t, "optional": opt, "field": f} for f, t, opt in fields]}
    if field:
        out["field"] = field
    return out


def _value_schema(db: str, table: str) -> dict[str, Any]:
    row = [(c, _connect_type(t), c not in TABLES[table]) for c, t in COLUMNS[table].items()]
    source = [(f, {"type": t}, True) for f, t in (
        ("version", "string"), ("connector", "string"), ("name", "string"), ("ts_ms", "int64"),
        ("snapshot", "string"), ("db", "string"), ("table", "string"), ("server_id", "int64"),
        ("gtid", "string"), ("file", "string"), ("pos", "int64"), ("row", "int32"))]
    value_name = f"synth.{db}.{table}.Value"
    return _struct(f"synth.{db}.{table}.Envelope", [
        ("before", _struct(value_name, row), True), ("after", _struct(value_name, row), True),
        ("source", _struct("io.debezium.connector.mysql.Source", source), False),
        ("op", {"type": "string"}, False), ("ts_ms", {"type": "int64"}, True)])


def _key(db: str, table: str, row: Row | None, schemas: bool) -> str | None:
    pk = TABLES[table]
    if not pk or row is None:
        return None
    payload = {c: _value(COLUMNS[table][c], row[c], schemas) for c in pk}
    if schemas:
        fields = [(c, _connect_type(COLUMNS[table][c]), False) for c in pk]
        return json.dumps({"schema": _struct(f"synth.{db}.{table}.Key", fields), "payload": payload})
    return json.dumps(payload)


def render(stream: Stream, topic: str, partitions: int = 3, schemas: bool = False,
           start_ms: int = 1_700_000_000_000) -> list[Record]:
    """Kafka records of `stream` as Debezium MySQL JSON (see the module docstring)."""
    offsets = [0] * partitions
    records: list[Record] = []

    def emit(table: str, key_row: Row | None, value: dict[str, Any] | None, ts_ms: int) -> None:
        part = synth.partition_of(table, key_row, partitions)
        key = _key(stream.db, table, key_row, schemas)
        if value is not None and schemas:
            text: str | None = json.dumps({"schema": _value_schema(stream.db, table), "payload": value},
                                          ensure_ascii=False)
        else:
            text = None if value is None else json.dumps(value, ensure_ascii=False)
        records.append(Record(topic, part, offsets[part], ts_ms + 500, text, key))
        offsets[part] += 1

    for pos, change in enumerate(stream.changes, start=1):
        ts_ms = start_ms + pos * 1000
        keyed = bool(TABLES[change.table])

        # called only within this iteration; the loop's values are bound as defaults all the same (B023)
        def event(op: str, before: Row | None, after: Row | None, row_no: int, *,
                  change: synth.Change = change, ts_ms: int = ts_ms, pos: int = pos) -> dict[str, Any]:
            return {
                "before": _image(change.table, before, schemas), "after": _image(change.table, after, schemas),
                "source": {"version": "2.7.0.Final", "connector": "mysql", "name": "synth", "ts_ms": ts_ms,
                           "snapshot": "false", "db": stream.db, "table": change.table, "server_id": 1,
                           "gtid": None, "file": _BINLOG, "pos": 4 + pos * 100, "row": row_no},
                "op": op, "ts_ms": ts_ms + 250,
            }

        if change.op == "TRUNCATE":
            emit(change.table, None, event("t", None, None, 0), ts_ms)
            continue
        for row_no, (before, after) in enumerate(change.rows):
            key_of = (lambda r, change=change: [r[c] for c in TABLES[change.table]]) if keyed else (lambda r: [])
            if change.op == "INSERT":
                emit(change.table, after, event("c", None, after, row_no), ts_ms)
            elif change.op == "UPDATE" and (not keyed or key_of(before) == key_of(after)):
                emit(change.table, after, event("u", before, after, row_no), ts_ms)
            else:  # DELETE, or an UPDATE that changes the key
                emit(change.table, before, event("d", before, None, row_no), ts_ms)
                if keyed:
                    emit(change.table, before, None, ts_ms)
                if after is not None:
                    emit(change.table, after, event("c", None, after, row_no), ts_ms)
    return records
