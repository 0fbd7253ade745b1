"""Render a generated stream as DataHub Tuple records written by DataWorks (datahub_tuple).

One record per row image, each a JSON object: the meta columns `_sequence_id_`,
`_operation_type_` (I/U/D), `_excute_time_` (the document's spelling; epoch ms),
`_source_table_`, `_before_image_`, `_after_image_`, then the table's columns. An UPDATE is
two records sharing one `_sequence_id_`: the before image (Y/N) then the after image (N/Y).
`_sequence_id_` is `<task start ms><6-digit counter>` and grows with the true order.

- `_source_table_` is written `db.table`: the document calls it the source table name; the
  qualified form keeps the tables of several generated databases apart (the decoder reads
  both forms).
- Shards as DataHub's document describes them: by key hash for keyed tables, at random for
  tables without a key (so only `_sequence_id_` orders an unkeyed table's changes).
- A Tuple topic carries no DDL, so the stream's TRUNCATE goes as a DELETE of every row the
  table holds at that point (what a consumer of the topic sees of it).
- Column values as the typed DataHub columns would hold them: integers and DOUBLE as JSON
  numbers, DECIMAL as JSON numbers with the digits of the text, text as strings, binary as
  base64 strings (DataHub Tuple has no binary type), DATETIME as its text (a STRING column).

The decoder reads numbers through Spark's VARIANT, which drops trailing fraction zeros
(`12.3400` -> `12.34`): `expected_state` is `synth.fold` with DECIMAL columns written so.
"""

from __future__ import annotations

import json
import random
from typing import Any

import synth


def _is_decimal(mysql_type: str) -> bool:
    return mysql_type.startswith("decimal")


def _json_value(mysql_type: str, text: str | None) -> str:
    """The JSON text of one column value."""
    if text is None:
        return "null"
    base = mysql_type.split("(", 1)[0]
    if base in ("bigint", "int", "decimal", "double"):
        return text  # the digits as written: a JSON number
    return json.dumps(text, ensure_ascii=False)


def _record(meta: dict[str, Any], table: str, row: synth.Row) -> str:
    """One Tuple record as JSON text: meta columns, then the table's columns in order."""
    columns = synth.COLUMNS[table]
    parts = [f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in meta.items()]
    parts += [f"{json.dumps(c, ensure_ascii=False)}: {_json_value(t, row[c])}" for c, t in columns.items()]
    return "{" + ", ".join(parts) + "}"


def render(stream: synth.Stream, topic: str, partitions: int = 3,
           start_ms: int = 1_700_000_000_000, seed: int = 5) -> list[synth.Record]:
    """Kafka records of `stream` as DataHub Tuple records (all tables in one topic)."""
    rng = random.Random(seed)
    offsets = [0] * partitions
    records: list[synth.Record] = []
    live: dict[str, list[synth.Row]] = {}  # the rows each table holds, for TRUNCATE
    counter = 0

    def emit(table: str, op: str, images: str, row: synth.Row, sequence: int, event_ms: int) -> None:
        meta: dict[str, Any] = {"_sequence_id_": str(start_ms * 1_000_000 + sequence), "_operation_type_": op,
                "_excute_time_": event_ms, "_source_table_": f"{stream.db}.{table}",
                "_before_image_": images[0], "_after_image_": images[1]}
        part = synth.partition_of(table, row, partitions) if synth.TABLES[table] else rng.randrange(partitions)
        records.append(synth.Record(topic, part, offsets[part], event_ms + 500, _record(meta, table, row)))
        offsets[part] += 1

    for number, change in enumerate(stream.changes, start=1):
        event_ms = start_ms + number * 1000
        rows = live.setdefault(change.table, [])
        pairs = [(row, None) for row in rows] if change.op == "TRUNCATE" else change.rows
        for before, after in pairs:
            counter += 1
            if before is not None:
                rows.remove(before)
            if after is not None:
                rows.append(after)
            if before is not None and after is not None:
                emit(change.table, "U", "YN", before, counter, event_ms)
                emit(change.table, "U", "NY", after, counter, event_ms)
            elif after is not None:
                emit(change.table, "I", "NY", after, counter, event_ms)
            elif before is not None:
                emit(change.table, "D", "YN", before, counter, event_ms)
    return records


def _variant_digits(text: str) -> str:
    """A decimal's text as it comes back from a VARIANT: no trailing fraction zeros, no -0."""
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def expected_state(stream: synth.Stream) -> dict[tuple[str, str], tuple[synth.Row, int]]:
    """`synth.fold(stream)` as gold holds it for this format: DECIMAL digits as the VARIANT
    gives them back. Row keys are of key columns (integers, unchanged) or, for the unkeyed
    table, of the whole row, which has no DECIMAL column."""
    out: dict[tuple[str, str], tuple[synth.Row, int]] = {}
    for (table_id, row_key), (row, count) in synth.fold(stream).items():
        columns = synth.COLUMNS[table_id.rsplit(".", 1)[-1]]
        out[(table_id, row_key)] = ({c: (_variant_digits(v) if v is not None and _is_decimal(columns[c]) else v)
                                     for c, v in row.items()}, count)
    return out
