"""Render a generated stream as Huawei DRS Avro records, with the RECONSTRUCTED schema.

One message per row change (the format has no multi-row messages): `operation` INSERT /
UPDATE / DELETE, `fields` the table's columns with their MySQL type names, `beforeImages` /
`afterImages` positional with them, a NULL column as a null element. Values are the
canonical text of the stream (the reconstructed schema's `value` is a string: DRS's own
text, whose renderings of binary and temporal types are unknown), so gold must equal
`synth.fold` as it is. A TRUNCATE is a `DDL` message without fields whose only after value
is the statement (where the reconstructed schema puts DDL text). `tableName` is quoted
(`"db"."table"`, as Huawei's sample strips quotes); `seqno` counts messages from 1 and
`updateTimestamp` (ms) grows with it. The format names no primary key: configure
`synth.TABLES` as var `cdc_primary_keys` (`primary_keys`). Records go to partitions by key
hash, keyed by the table name.
"""

from __future__ import annotations

import io
from typing import Any

import synth
from udfs import drs_avro

SINGLE_OBJECT = "single-object"
RAW = "raw"


def encode(record: dict[str, Any], schema: drs_avro.WriterSchema, framing: str = SINGLE_OBJECT) -> bytes:
    """One Avro datum of `record`, with the single-object header unless `framing` is raw."""
    from fastavro import schemaless_writer

    out = io.BytesIO()
    if framing == SINGLE_OBJECT:
        out.write(drs_avro.MARKER + bytes.fromhex(schema.fingerprint))
    schemaless_writer(out, schema.parsed, record)
    return out.getvalue()


def primary_keys(db: str) -> dict[str, list[str]]:
    """The var `cdc_primary_keys` entries of a stream's keyed tables."""
    return {f"{db}.{table}": columns for table, columns in synth.TABLES.items() if columns}


def _image(table: str, row: synth.Row | None) -> list[dict[str, str] | None] | None:
    if row is None:
        return None
    return [None if row[c] is None else {"value": row[c]} for c in synth.COLUMNS[table]]


def render(stream: synth.Stream, topic: str, partitions: int = 3, framing: str = SINGLE_OBJECT,
           start_ms: int = 1_700_000_000_000) -> list[synth.Record]:
    """Kafka records of `stream` in DRS Avro (the shipped reconstructed schema)."""
    schema = drs_avro.load_schema(drs_avro.DEFAULT_SCHEMA)
    offsets = [0] * partitions
    records: list[synth.Record] = []
    seqno = 0

    def emit(table: str, operation: str, fields: list[dict[str, str]], before: Any, after: Any,
             event_ms: int, key_row: synth.Row | None) -> None:
        nonlocal seqno
        seqno += 1
        name = f'"{stream.db}"."{table}"'
        message = {
            "version": "1.0", "seqno": seqno, "shardId": "0", "eventid": f"{stream.db}-{seqno}",
            "updateTimestamp": event_ms, "tableName": name, "operation": operation,
            "columnCount": len(fields), "fields": fields, "beforeImages": before, "afterImages": after,
        }
        part = synth.partition_of(table, key_row, partitions)
        records.append(synth.Record.of_bytes(topic, part, offsets[part], event_ms + 300,
                                             encode(message, schema, framing), key=name))
        offsets[part] += 1

    for number, change in enumerate(stream.changes, start=1):
        event_ms = start_ms + number * 1000
        if change.op == "TRUNCATE":
            statement = f'TRUNCATE TABLE "{stream.db}"."{change.table}"'
            emit(change.table, "DDL", [], None, [{"value": statement}], event_ms, None)
            continue
        fields = [{"name": c, "type": t} for c, t in synth.COLUMNS[change.table].items()]
        for before, after in change.rows:
            emit(change.table, change.op, fields, _image(change.table, before), _image(change.table, after),
                 event_ms, after if after is not None else before)
    return records
