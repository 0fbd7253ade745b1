"""The uninterrupted build that the state folders of the process tests must equal, built
once for all of them.

The user home (tests/process_support.py: crashed twice, rebuilt by plain dbt) and the `cdc
run` state folder (tests/kafka_run.py: killed, replayed, through a broker outage) took in
records of their own topics and tables. The session's lake, reset, lands the same records
from files (the user home's samples, as its `cdc land`s did, then the dump of the run's
topics) and `cdc build` builds them once, its data tests included: test_crash_recovery
and test_kafka_ingest compare each state folder with this lake's rows of their topics
and tables, and test_checked_batches goes on from this build (a whole build of a lake of
three landing batches, each checked) instead of building one of its own.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cdclake import build_record, building
from process_support import GOLD_QUERIES, USER_LANDINGS, rows_as_json

if TYPE_CHECKING:
    from cdclake.lake import Lake

# a record as bronze holds it, without where and when it landed
BRONZE = ("select topic, kafka_partition, kafka_offset, kafka_ts, message_key, message_value, value_encoding, "
          "headers, count(*) as times from bronze.kafka_messages group by all")

# what a state folder and this lake must hold alike (bronze: the Kafka run's)
LAKE_QUERIES = {**GOLD_QUERIES, "bronze": BRONZE}


@dataclass(frozen=True)
class ReferenceLake:
    rows: dict[str, list[str]]  # this lake's rows of LAKE_QUERIES right after the build, as JSON
    topics: dict[str, set[str]]  # "user home", "kafka run" -> the topics of its records
    batches: int  # the landing batches it built (all checked by the build's data tests)
    built: bool | None  # what `cdc build` returned
    said: list[str]  # what it said

    def tables_of(self, name: str) -> set[str]:
        """The tables that the sync status shows fed from the topics of `name` (not the
        topic-wide figures, which name no table)."""
        return {row["table_id"] for row in map(json.loads, self.rows["status"])
                if row["topic"] in self.topics[name] and row["table_id"] is not None}

    def rows_of(self, name: str) -> dict[str, list[str]]:
        """The rows of the records of `name` ("user home", "kafka run"): of its topics, and
        of the tables they fed."""
        topics, tables = self.topics[name], self.tables_of(name)

        def mine(row: dict[str, object]) -> bool:
            return row["topic"] in topics if "topic" in row else row["table_id"] in tables

        return {query: [line for line in lines if mine(json.loads(line))] for query, lines in self.rows.items()}


def build_reference(lake: Lake, kafka_dump: Path | None) -> ReferenceLake:
    """The session's lake, reset, with USER_LANDINGS landed as the user home's `cdc land`s
    did and `kafka_dump` (None: no Kafka run) as one more landing, built by `cdc build`."""
    lake.reset()
    landings: list[tuple[str, list[str], str | None]] = [("user home", files, topic) for files, topic in USER_LANDINGS]
    if kafka_dump is not None:
        landings.append(("kafka run", [str(kafka_dump)], None))
    topics: dict[str, set[str]] = {}
    for name, files, topic in landings:
        batch_id, _ = lake.land(files, topic)
        found = lake.rows("select distinct topic from bronze.kafka_messages where landing_batch_id = :b", b=batch_id)
        topics.setdefault(name, set()).update(row["topic"] for row in found)
    said: list[str] = []
    # the scope of a build's data tests is an environment variable of this process, which
    # `cdc build` sets: the builds of other tests must not inherit it
    scope = os.environ.get(build_record.SINCE_VARIABLE)
    try:
        built = building.build(lake.spark, [], say=said.append, quiet=True)
    finally:
        os.environ.pop(build_record.SINCE_VARIABLE, None)
        if scope is not None:
            os.environ[build_record.SINCE_VARIABLE] = scope
    reference = ReferenceLake(rows_as_json(lake, LAKE_QUERIES), topics, len(landings), built, said)
    if kafka_dump is not None:
        shared = (reference.topics["user home"] & reference.topics["kafka run"]
                  or reference.tables_of("user home") & reference.tables_of("kafka run"))
        assert not shared, f"the user home and the Kafka run share {shared}: they cannot share a lake"
    return reference
