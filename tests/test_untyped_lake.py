"""Regression 5 of the real-database truth (tests/examples/test_realdb_regressions.py): an
empty lake builds, with no format at all, and so does a lake whose tables carry no vendor
types (Shareplex Json only: gold.cdc_cast_failures has no type to cast by)."""

from __future__ import annotations

import json

import pytest

from cdclake.lake import Lake

ES = 1_700_000_000_000


@pytest.fixture(scope="module")
def built(lake: Lake, tmp_path_factory: pytest.TempPathFactory) -> Lake:
    """An empty lake builds, then one with a Shareplex message alone. The empty lake's
    build leaves the data tests out: they would read no rows but the seeds', and the second
    build runs every one of them over the same tables and seeds. Without them it took 34 s
    instead of 46 s."""
    tmp = tmp_path_factory.mktemp("untyped")
    lake.reset()
    lake.build("--exclude", "resource_type:test")
    shareplex = tmp / "shareplex.jsonl"
    shareplex.write_text(json.dumps({
        "topic": "reg.untyped.shareplex", "partition": 0, "offset": 0, "timestamp": ES,
        "value": json.dumps({"meta": {"op": "ins", "table": "untyped.t", "rowid": "AAA", "scn": "1", "trans": "1",
                                      "seq": 1, "time": "2023-11-14T22:13:20"},
                             "data": {"id": "1", "note": "no types"}})}) + "\n", encoding="utf-8")
    lake.land([shareplex], declared_format="shareplex_json")
    lake.build()
    return lake


def test_lake_without_vendor_types_builds(built):
    """5. The Shareplex-only build succeeded (fixture); its row is in gold."""
    (row,) = built.rows("select row from gold.cdc_current_rows where table_id = 'untyped.t'")
    assert row["row"] == {"id": "1", "note": "no types", "ROWID": "AAA"}
