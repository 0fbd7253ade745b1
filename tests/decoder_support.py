"""Decoder unit tests: one decoder over messages a test gives, without a build.

`Decoders.rows(format_id, messages)` puts the messages in a temporary view shaped like
silver.stg_cdc__messages (each routed to the format, first deliveries of one landing
batch), runs `decode_<format>` over it and finishes the rows as int_cdc__decoded does
(cdc_identified_rows): the rows a build would store, in about a second. The SQL of every
format is compiled at once, in one dbt compile per set of vars (a compile costs about a
second, whatever it renders).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from cdclake.formats import KNOWN_FORMATS

if TYPE_CHECKING:
    from cdclake.lake import Lake

VIEW = "unit_messages"
# silver.stg_cdc__messages, column by column (test_decoder_contract checks it against a build)
MESSAGES_SCHEMA = (
    "message_id string, topic string, kafka_partition int, kafka_offset bigint, kafka_ts timestamp, "
    "message_key string, message_value string, value_encoding string, "
    "headers array<struct<key:string,value:string>>, declared_format string, format_source string, "
    "source_file string, source_line bigint, landed_at timestamp, landing_batch_id bigint, "
    "is_duplicate boolean, route_stage string, route_error string, vendor_format string"
)


@dataclass(frozen=True)
class Message:
    """One Kafka record as a decoder receives it. `offset` None: its place in the list."""

    value: str | None
    key: str | None = None
    topic: str = "unit"
    partition: int = 0
    offset: int | None = None
    timestamp_ms: int = 1_700_000_000_000
    encoding: str = "text"


def as_message(item: Message | str | dict[str, Any]) -> Message:
    """A Message from itself, from a value, or from a Kafka record dict as `cdc land` reads
    it (topic, partition, offset, timestamp, key, value or value_base64)."""
    if isinstance(item, Message):
        return item
    if isinstance(item, str):
        return Message(item)
    encoded = "value_base64" in item
    return Message(value=item["value_base64"] if encoded else item.get("value"), key=item.get("key"),
                   topic=item.get("topic", "unit"), partition=item.get("partition", 0),
                   offset=item.get("offset"), timestamp_ms=item.get("timestamp", 1_700_000_000_000),
                   encoding="base64" if encoded else "text")


class Decoders:
    def __init__(self, lake: Lake) -> None:
        self.lake = lake
        # vars (as JSON) -> format id -> (the decoder's SQL, the finished SQL)
        self._compiled: dict[str, dict[str, tuple[str, str]]] = {}

    def _of_vars(self, variables: dict[str, Any] | None) -> dict[str, tuple[str, str]]:
        key = json.dumps(variables or {}, sort_keys=True)
        if key not in self._compiled:
            # every format's two queries, rendered by one dbt compile
            expressions = {}
            for f in KNOWN_FORMATS:
                expressions[f] = f"decode_{f}('{VIEW}')"
                expressions[f"{f} finished"] = (f"'with unit_decoded as (' ~ decode_{f}('{VIEW}') ~ '), ' "
                                                "~ cdc_identified_rows('unit_decoded') ~ ' select * from identified'")
            # the vars given, none but the project's when none are: never the lake's (Lake.vars)
            compiled = self.lake.compile_many(expressions, "--vars", key)
            self._compiled[key] = {f: (compiled[f], compiled[f"{f} finished"]) for f in KNOWN_FORMATS}
        return self._compiled[key]

    def sql(self, format_id: str, variables: dict[str, Any] | None = None) -> str:
        """decode_<format> over the unit view, finished as int_cdc__decoded finishes it."""
        return self._of_vars(variables)[format_id][1]

    def decoder_sql(self, format_id: str) -> str:
        """decode_<format> over the unit view, as the decoder returns its rows."""
        return self._of_vars(None)[format_id][0]

    def load(self, format_id: str, messages: list[Message | str | dict[str, Any]]) -> None:
        rows = []
        for line, item in enumerate(messages, start=1):
            m = as_message(item)
            identity = hashlib.md5(f"{m.topic}\x01{m.key}\x01{m.value}".encode()).hexdigest()
            rows.append((identity, m.topic, m.partition, line - 1 if m.offset is None else m.offset,
                         datetime.fromtimestamp(m.timestamp_ms / 1000, UTC),
                         m.key, m.value, m.encoding, None, format_id, "declared", "unit.jsonl", line,
                         datetime(2026, 1, 1, tzinfo=UTC), 1, False, "route", None, format_id))
        self.lake.spark.createDataFrame(rows, MESSAGES_SCHEMA).createOrReplaceTempView(VIEW)

    def rows(self, format_id: str, messages: list[Message | str | dict[str, Any]],
             variables: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """The decoded rows of `messages`, in message order then row order."""
        self.load(format_id, messages)
        query = f"select * from ({self.sql(format_id, variables)}) order by source_line, row_index"
        return [r.asDict(recursive=True) for r in self.lake.spark.sql(query).collect()]
