"""gold.cdc_sync_status adds up, run after run, to what silver holds (of the whole examples
lake, tests/examples/conftest.py); `cdc status` prints it."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import synth
from cdclake import cli

if TYPE_CHECKING:
    from cdclake.lake import Lake

TOPIC = "status.canal"
HEARTBEATS = "__debezium-heartbeat.status"

# the figures of one (topic, table_id) computed straight from silver, for comparison
FROM_SILVER = """
with decoded as (
    select topic, table_id, record_kind, op, marker_kind, event_ts, capture_ts
    from silver.int_cdc__decoded where record_kind != 'half'
    union all
    -- update halves count once, as the UPDATE their pair became
    select topic, table_id, 'change', op, null, event_ts, capture_ts
    from silver.int_cdc__update_pairs
    union all
    select topic, null, 'duplicate', null, null, null, null
    from silver.stg_cdc__messages where is_duplicate
    union all
    -- a half still waiting for its partner counts nothing, but gives its table a row
    select topic, table_id, 'waiting', null, null, null, null
    from silver.cdc_update_halves where not is_paired
)
select topic, table_id,
    count_if(record_kind = 'change') as changes,
    count_if(op = 'INSERT') as inserts, count_if(op = 'UPDATE') as updates,
    count_if(op = 'DELETE') as deletes, count_if(op = 'TRUNCATE') as truncates,
    count_if(record_kind = 'ddl') as ddl_events,
    count_if(record_kind = 'marker' and marker_kind != 'HEARTBEAT') as other_markers,
    count_if(marker_kind = 'HEARTBEAT') as heartbeats,
    count_if(record_kind = 'reject') as rejects,
    count_if(record_kind = 'duplicate') as duplicates,
    max(case when record_kind = 'change' then event_ts end) as last_event_ts
from decoded group by topic, table_id
"""
COLUMNS = ("changes", "inserts", "updates", "deletes", "truncates", "ddl_events", "other_markers", "heartbeats",
           "rejects", "duplicates", "last_event_ts")


def _status(lake: Lake) -> dict[tuple[str, str | None], dict]:
    return {(r["topic"], r["table_id"]): r for r in lake.rows("select * from gold.cdc_sync_status")}


def _expected(lake: Lake) -> dict[tuple[str, str | None], dict]:
    return {(r["topic"], r["table_id"]): r for r in lake.rows(FROM_SILVER)}


def _assert_adds_up(status: dict[tuple[str, str | None], dict], expected: dict[tuple[str, str | None], dict]) -> None:
    assert set(status) == set(expected)
    for key, want in expected.items():
        assert {c: status[key][c] for c in COLUMNS} == {c: want[c] for c in COLUMNS}, key


def batch_files(tmp: Path) -> list[Path]:
    stream = synth.generate("status", n_changes=120, seed=5)
    records = synth.redeliver(synth.render_canal_family(stream, "canal_json", topic=TOPIC), 0.1)
    paths = []
    for i, part in enumerate(synth.split(records, 2)):
        path = tmp / f"part{i}.jsonl"
        synth.write_records(path, part)
        with path.open("a", encoding="utf-8") as out:
            out.write(json.dumps({"topic": TOPIC, "partition": 9, "offset": i, "timestamp": 0,
                                  "key": None, "value": f"{{not json {i}"}) + "\n")
        paths.append(path)
    heartbeat = tmp / "heartbeat.jsonl"
    heartbeat.write_text(json.dumps({"topic": HEARTBEATS, "partition": 0, "offset": 0, "timestamp": 0,
                                     "key": '{"serverName": "status"}', "value": '{"ts_ms": 1700000000000}'})
                         + "\n", encoding="utf-8")
    return [*paths, heartbeat]


@dataclass(frozen=True)
class Runs:
    lake: Lake
    # after each build: (gold.cdc_sync_status, the same figures computed from silver)
    after: list[tuple[dict[tuple[str, str | None], dict], dict[tuple[str, str | None], dict]]]


def land_examples(lake: Lake, tmp: Path) -> Iterator[None]:
    """Half the stream, then the other half with a heartbeat, then a build that brings
    this module nothing new (tests/examples/conftest.py)."""
    first, second, heartbeat = batch_files(tmp)
    after = []
    lake.land([first], declared_format="canal_json")
    yield
    after.append((_status(lake), _expected(lake)))
    lake.land([second], declared_format="canal_json")
    lake.land([heartbeat])
    yield
    after.append((_status(lake), _expected(lake)))
    yield
    after.append((_status(lake), _expected(lake)))
    return Runs(lake, after)


def test_status_adds_up_to_silver_after_each_run(built):
    for status, expected in built.after:
        _assert_adds_up(status, expected)
    first, status = built.after[0][0], built.after[1][0]
    assert first[(TOPIC, None)]["rejects"] == 1
    assert status[(TOPIC, None)]["rejects"] == 2
    assert status[(TOPIC, None)]["duplicates"] > 0
    orders = status[(TOPIC, "status.orders")]
    assert orders["changes"] > first[(TOPIC, "status.orders")]["changes"]
    # Canal's `ts` (capture) is 250 ms after `es` (source change) in the generated stream
    assert float(orders["last_change_lag_seconds"]) == pytest.approx(0.25, abs=0.001)
    assert orders["last_heartbeat_ts"] is None and orders["heartbeat_lag_seconds"] is None


def test_a_heartbeat_gives_its_time_and_its_age_at_build_time(built):
    beat = built.after[1][0][(HEARTBEATS, None)]
    assert beat["heartbeats"] == 1 and beat["changes"] == 0
    [beat] = built.lake.rows("""
        select cast(last_heartbeat_ts as string) as heartbeat_utc, heartbeat_lag_seconds,
            (unix_micros(built_at) - unix_micros(last_heartbeat_ts)) / 1e6 as age
        from gold.cdc_sync_status where topic = :t""", t=HEARTBEATS)
    assert beat["heartbeat_utc"] == "2023-11-14 22:13:20"  # ts_ms 1700000000000, session time zone UTC
    assert float(beat["heartbeat_lag_seconds"]) == pytest.approx(beat["age"], abs=0.01)


def test_a_run_with_nothing_new_for_a_topic_leaves_its_figures(built):
    (status, _), (again, _) = built.after[1], built.after[2]
    mine = [key for key in status if key[0] in (TOPIC, HEARTBEATS)]
    assert mine
    assert {k: {c: again[k][c] for c in COLUMNS} for k in mine} == {k: {c: status[k][c] for c in COLUMNS}
                                                                    for k in mine}


def test_cdc_status_prints_the_table(built):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["status", "--json"]) == 0
    printed = json.loads(out.getvalue())
    assert {(r["topic"], r["table_id"]) for r in printed} == set(_status(built.lake))
    assert {"changes", "inserts", "rejects", "lag_s", "last_heartbeat_ts", "heartbeat_lag_s"} <= set(printed[0])

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["status"]) == 0
    assert "status.orders" in out.getvalue() and "rejects" in out.getvalue()


def test_cdc_status_lag_reads_the_lag_view_of_a_built_lake(built):
    """gold.cdc_kafka_lag is a view (no folder of its own): a built lake answers, an
    empty list when nothing was ingested from Kafka."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["status", "--lag", "--json"]) == 0
    assert isinstance(json.loads(out.getvalue()), list)
