"""A generated stream as Huawei MRS CDL JSON (`message_version` 1.0) Kafka records.

One message per row: `schema` (Kafka Connect JsonConverter) + `payload` with DATA_STORE,
SEG_OWNER (the stream's db), TABLE_NAME, TIMESTAMP (ms), OPERATION, LOB_COLUMNS,
`transaction.properties` (lsn increasing per row, txId per statement), `unique` (the
key struct; null for the unkeyed `events`), `data` and `before`. Integers and doubles
are JSON numbers, decimals CDL's Decimal text, binary base64 `bytes`, datetimes text.
`orders.note` is declared a LOB column: an UPDATE that leaves it unchanged omits it
from `data`, as CDL does with unchanged LOBs. Every 50th message is followed by a row of
the CDL heartbeat table CDC_CDL.CDC_HEARTBEAT.

CDL has no TRUNCATE operation: TRUNCATE changes are not rendered (fold the stream
without them to get the expected state).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import synth

LOB_COLUMNS = {"orders": ["note"]}
_DECIMAL = "com.xxx.cdc.data.Decimal"


def _connect_field(name: str, vendor_type: str) -> dict[str, Any]:
    if vendor_type.startswith("bigint"):
        return {"type": "int64", "optional": True, "field": name}
    if vendor_type.startswith("int"):
        return {"type": "int32", "optional": True, "field": name}
    if vendor_type.startswith("decimal"):
        return {"type": "string", "optional": True, "name": _DECIMAL, "field": name}
    if vendor_type == "double":
        return {"type": "float64", "optional": True, "field": name}
    if "binary" in vendor_type:
        return {"type": "bytes", "optional": True, "field": name}
    return {"type": "string", "optional": True, "field": name}


def _json_value(field: dict[str, Any], value: str | None) -> Any:
    if value is None:
        return None
    if field["type"] in ("int32", "int64"):
        return int(value)
    if field["type"] == "float64":
        return float(value)
    return value


def _schema(table: str) -> dict[str, Any]:
    columns = [_connect_field(c, t) for c, t in synth.COLUMNS[table].items()]
    key = [f for f in columns if f["field"] in synth.TABLES[table]]
    key.sort(key=lambda f: synth.TABLES[table].index(f["field"]))
    return {"type": "struct", "optional": False, "name": f"cdl.{table}", "fields": [
        {"type": "string", "optional": False, "field": "DATA_STORE"},
        {"type": "string", "optional": False, "field": "SEG_OWNER"},
        {"type": "string", "optional": False, "field": "TABLE_NAME"},
        {"type": "int64", "optional": False, "name": "org.apache.kafka.connect.data.Timestamp", "version": 1,
         "field": "TIMESTAMP"},
        {"type": "string", "optional": False, "field": "OPERATION"},
        {"type": "string", "optional": True, "field": "LOB_COLUMNS"},
        {"type": "struct", "optional": False, "name": "transaction", "field": "transaction", "fields": [
            {"type": "array", "optional": False, "field": "properties", "items": {
                "type": "struct", "optional": False, "fields": [
                    {"type": "string", "optional": False, "field": "name"},
                    {"type": "int64", "optional": False, "field": "value"}]}}]},
        {"type": "struct", "optional": True, "name": "unique", "field": "unique", "fields": key},
        {"type": "struct", "optional": True, "name": "data", "field": "data", "fields": columns},
        {"type": "struct", "optional": True, "name": "before", "field": "before", "fields": columns},
        {"type": "string", "optional": False, "field": "message_version"},
        {"type": "string", "optional": False, "field": "message_type"},
        {"type": "string", "optional": True, "field": "HEARTBEAT_IDENTIFIER"},
    ]}


def _image(table: str, row: synth.Row | None) -> dict[str, Any] | None:
    if row is None:
        return None
    fields = {f["field"]: f for f in (_connect_field(c, t) for c, t in synth.COLUMNS[table].items())}
    return {c: _json_value(fields[c], v) for c, v in row.items()}


def _message(schema: dict[str, Any], payload: dict[str, Any]) -> str:
    return json.dumps({"schema": schema, "payload": payload}, ensure_ascii=False)


def render(stream: synth.Stream, topic: str, partitions: int = 3,
           start_ms: int = 1_700_000_000_000) -> list[synth.Record]:
    schemas = {t: _schema(t) for t in synth.TABLES}
    heartbeat_schema = {"type": "struct", "optional": False, "name": "CDC_CDL.CDC_HEARTBEAT", "fields": []}
    offsets = [0] * partitions
    records: list[synth.Record] = []
    lsn = 163_955_221_008
    ids = uuid.UUID(int=7)

    def emit(partition: int, ts: int, value: str) -> None:
        records.append(synth.Record(topic, partition, offsets[partition], ts + 40, value))
        offsets[partition] += 1

    def payload(schema_owner: str, table: str, ts: int, op: str, tx: int, **images: Any) -> dict[str, Any]:
        nonlocal lsn
        lsn += 8
        return {"DATA_STORE": "POSTGRESQL", "SEG_OWNER": schema_owner, "TABLE_NAME": table, "TIMESTAMP": ts,
                "OPERATION": op, "transaction": {"properties": [{"name": "lsn", "value": lsn},
                                                                {"name": "txId", "value": tx}]},
                "message_version": "1.0", "message_type": "0",
                "HEARTBEAT_IDENTIFIER": str(uuid.uuid5(ids, str(lsn))), **images}

    for number, change in enumerate(stream.changes, start=1):
        if change.op == "TRUNCATE":
            continue
        table, tx = change.table, 57_227_595 + number
        ts = start_ms + number * 1000
        lobs = LOB_COLUMNS.get(table, [])
        for before, after in change.rows:
            data = _image(table, after)
            if change.op == "UPDATE" and data is not None and before is not None:
                data = {c: v for c, v in data.items() if c not in lobs or before[c] != after[c]}
            identity = after if after is not None else before
            unique = {c: _image(table, identity)[c] for c in synth.TABLES[table]} or None
            message = payload(stream.db, table, ts, change.op, tx, LOB_COLUMNS=",".join(lobs) or None,
                              unique=unique, data=data, before=_image(table, before))
            emit(synth.partition_of(table, identity, partitions), ts, _message(schemas[table], message))
            if len(records) % 50 == 0:
                beat = payload("CDC_CDL", "CDC_HEARTBEAT", ts, "UPDATE", tx, LOB_COLUMNS=None, unique=None,
                               data={"CDL_JOB_ID": "job-1", "CDL_LAST_HEARTBEAT": ts}, before=None)
                emit(0, ts, _message(heartbeat_schema, beat))
    return records
