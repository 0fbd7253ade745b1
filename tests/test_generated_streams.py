"""Generated streams of every Canal-family format fold to the same gold as plain Python.

One logical stream (tests/synth.py: keyed, composite-keyed and unkeyed tables;
multi-row statements, key-changing updates, deletes, a truncate, NULLs, unicode, long
decimals, binary) is rendered in each format and landed under its own database name,
so one build checks all four formats. Gold must equal the reference fold also when
the records arrive shuffled with 10% re-deliveries, and when split across landing
batches built one after the other.
"""

from __future__ import annotations

import pytest

import synth
from streams_support import assert_same_state, land_all

FORMATS = ("canal_json", "canal_json_legacy", "drs_json", "drs_json_c")
GOLD = "select table_id, row_key, row, row_count from gold.cdc_current_rows"


@pytest.fixture(scope="module")
def streams() -> dict[str, synth.Stream]:
    return {f: synth.generate(f, n_changes=1200, seed=FORMATS.index(f) + 1) for f in FORMATS}


@pytest.fixture(scope="module")
def records(streams) -> dict[str, list[synth.Record]]:
    return {f: synth.render_canal_family(s, f, topic=f"gen.{f}") for f, s in streams.items()}


def expected_gold(streams: dict[str, synth.Stream]) -> dict[tuple[str, str], tuple[dict, int]]:
    state: dict[tuple[str, str], tuple[dict, int]] = {}
    for stream in streams.values():
        state.update(synth.fold(stream))
    return state


def actual_gold(lake) -> dict[tuple[str, str], tuple[dict, int]]:
    return {(r["table_id"], r["row_key"]): (r["row"], r["row_count"]) for r in lake.rows(GOLD)}


def assert_gold_matches(lake, streams) -> None:
    assert_same_state(expected_gold(streams), actual_gold(lake))


def test_stream_is_rich_enough(streams, records):
    for format_id, stream in streams.items():
        ops = {(c.table, c.op) for c in stream.changes}
        assert sum(len(c.rows) for c in stream.changes) >= 1000
        assert {("orders", "UPDATE"), ("order_lines", "UPDATE"), ("events", "TRUNCATE"),
                ("events", "DELETE"), ("orders", "DELETE")} <= ops
        assert any(len(c.rows) > 1 and c.op == "UPDATE" for c in stream.changes)
        assert any(b and a and b["id"] != a["id"] for c in stream.changes if c.table == "orders"
                   for b, a in c.rows)
        assert len({r.partition for r in records[format_id]}) == 3


def test_in_order_stream_folds_like_python(lake, streams, records, tmp_path):
    lake.reset()
    land_all(lake, tmp_path, "ordered", records)
    lake.build()
    assert_gold_matches(lake, streams)


def test_shuffled_stream_with_redeliveries_folds_the_same(lake, streams, records, tmp_path):
    lake.reset()
    disordered = {f: synth.shuffled(synth.redeliver(r, 0.10)) for f, r in records.items()}
    land_all(lake, tmp_path, "shuffled", disordered)
    lake.build()
    assert_gold_matches(lake, streams)
    duplicates = lake.rows("select count(*) as n from silver.stg_cdc__messages where is_duplicate")[0]["n"]
    assert duplicates == sum(len(r) for r in disordered.values()) - sum(len(r) for r in records.values())


def test_two_landing_batches_fold_the_same_and_relanding_changes_nothing(lake, streams, records, tmp_path):
    lake.reset()
    halves = {f: list(synth.split(synth.shuffled(synth.redeliver(r, 0.10)), 2)) for f, r in records.items()}
    land_all(lake, tmp_path, "first", {f: h[0] for f, h in halves.items()})
    lake.build()
    land_all(lake, tmp_path, "second", {f: h[1] for f, h in halves.items()})
    lake.build()
    assert_gold_matches(lake, streams)

    history = lake.rows("select * from gold.cdc_row_history order by table_id, row_key, valid_from, change_id")
    land_all(lake, tmp_path, "second", {f: h[1] for f, h in halves.items()})
    lake.build()
    assert_gold_matches(lake, streams)
    assert lake.rows("select * from gold.cdc_row_history order by table_id, row_key, valid_from, change_id") == history
