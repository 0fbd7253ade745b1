"""Render a generated stream as DataWorks "sync whole database to Kafka" JSON records.

One message per row image, as DataWorks writes them: INSERT (after), DELETE (before),
UPDATE as `UPDATE_BEFOR` + `UPDATE_AFTER` sharing one `sequenceId` (or, with
`one_message_updates`, one `UPDATE_AFTER` carrying both images), TRUNCATE as a TRUNCATE
message with the statement in `ddl.text`. Tables without a key have `primaryKey` null.
`sequenceId` is `<task start ms><6-digit counter>` and grows with the true order; records
go to partitions by key hash (by table name without a key, like DataHub Blob shards).

Column types follow DataWorks' six: integers LONG, text STRING, binary BYTES (base64),
DECIMAL as DOUBLE written as a JSON string (as in Paimon's captured messages: exact text),
DOUBLE as a JSON number, DATETIME as DATE (epoch ms). DataWorks sends DATETIME as an
instant, so gold holds `created` as ISO-8601 UTC text: `expected_state` is `synth.fold`
with that conversion (the wall-clock text of the stream read as UTC).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import synth

_TYPES = {"bigint": "LONG", "int": "LONG", "varchar": "STRING", "text": "STRING", "varbinary": "BYTES",
          "decimal": "DOUBLE", "double": "DOUBLE", "datetime": "DATE"}


def _type(mysql_type: str) -> str:
    return _TYPES[mysql_type.split("(", 1)[0]]


def _epoch_ms(wall_clock: str) -> int:
    return int(datetime.strptime(wall_clock, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC).timestamp() * 1000)


def _iso(wall_clock: str) -> str:
    return datetime.strptime(wall_clock, "%Y-%m-%d %H:%M:%S").strftime("%Y-%m-%dT%H:%M:%SZ")


def _value(mysql_type: str, text: str | None) -> Any:
    if text is None:
        return None
    base = mysql_type.split("(", 1)[0]
    if base in ("bigint", "int"):
        return int(text)
    if base == "datetime":
        return _epoch_ms(text)
    if base == "double":
        number = float(text)
        if number.is_integer() and "." not in text:
            return int(text)
        if repr(number) == text:
            return number
    return text


def _image(table: str, row: synth.Row | None) -> dict[str, Any] | None:
    if row is None:
        return None
    return {"dataColumn": {c: _value(synth.COLUMNS[table][c], v) for c, v in row.items()}}


def _schema(db: str, table: str) -> dict[str, Any]:
    return {
        "dataColumn": [{"name": c, "type": _type(t)} for c, t in synth.COLUMNS[table].items()],
        "primaryKey": synth.TABLES[table] or None,
        "source": {"dbType": "MySQL", "dbName": db, "tableName": table},
    }


def render(stream: synth.Stream, topic: str, partitions: int = 3, one_message_updates: bool = False,
           start_ms: int = 1_700_000_000_000) -> list[synth.Record]:
    """Kafka records of `stream` in DataWorks JSON (two-message updates by default)."""
    offsets = [0] * partitions
    records: list[synth.Record] = []
    counter = 0

    def emit(table: str, op: str, before: synth.Row | None, after: synth.Row | None, event_ms: int,
             ddl: dict[str, str] | None = None, key_row: synth.Row | None = None) -> None:
        message = {
            "schema": _schema(stream.db, table) if ddl is None else
            {"dataColumn": None, "primaryKey": None, "source": {"dbType": "MySQL", "dbName": stream.db,
                                                                 "tableName": table}},
            "payload": {
                "before": _image(table, before), "after": _image(table, after),
                "sequenceId": str(start_ms * 1_000_000 + counter), "op": op,
                "timestamp": {"eventTime": event_ms, "systemTime": event_ms + 250, "checkpointTime": event_ms},
                "ddl": ddl,
            },
            "version": "0.0.1",
        }
        part = synth.partition_of(table, key_row, partitions)
        records.append(synth.Record(topic, part, offsets[part], event_ms + 500,
                                    json.dumps(message, ensure_ascii=False)))
        offsets[part] += 1

    for number, change in enumerate(stream.changes, start=1):
        event_ms = start_ms + number * 1000
        if change.op == "TRUNCATE":
            counter += 1
            emit(change.table, "TRUNCATE", None, None, event_ms,
                 ddl={"text": f"TRUNCATE TABLE `{stream.db}`.`{change.table}`", "ddlMeta": None})
            continue
        for before, after in change.rows:
            counter += 1
            if change.op == "INSERT":
                emit(change.table, "INSERT", None, after, event_ms, key_row=after)
            elif change.op == "DELETE":
                emit(change.table, "DELETE", before, None, event_ms, key_row=before)
            elif one_message_updates:
                emit(change.table, "UPDATE_AFTER", before, after, event_ms, key_row=after)
            else:
                emit(change.table, "UPDATE_BEFOR", before, None, event_ms, key_row=before)
                emit(change.table, "UPDATE_AFTER", None, after, event_ms, key_row=after)
    return records


def expected_state(stream: synth.Stream) -> dict[tuple[str, str], tuple[synth.Row, int]]:
    """`synth.fold(stream)` as gold holds it for this format: DATE columns as ISO-8601 UTC."""
    state = synth.fold(stream)
    dates = {t: [c for c, ty in cols.items() if _type(ty) == "DATE"] for t, cols in synth.COLUMNS.items()}
    out = {}
    for (table_id, row_key), (row, count) in state.items():
        table = table_id.rsplit(".", 1)[-1]
        out[(table_id, row_key)] = ({c: (_iso(v) if c in dates[table] and v is not None else v)
                                     for c, v in row.items()}, count)
    return out
