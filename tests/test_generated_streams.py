"""Generated streams of eleven formats fold to the same gold as plain Python.

One logical stream per format (tests/synth.py: keyed, composite-keyed and unkeyed
tables, multi-row statements, key-changing updates, deletes, a truncate, NULLs, unicode,
long decimals, binary) is rendered as that format writes it (the Canal family by
synth.render_canal_family, the others by tests/renderers/<format>.py) and landed under
its own database name, so one build checks every format. Gold must equal the reference
fold in order, and shuffled with 10% re-deliveries dealt into two landing batches built
one after the other (DataWorks and DataHub Tuple updates whose two halves land in
different batches wait for their partner); landing the second batch again changes
nothing. The generated streams are for volume and combinations; the real-database
harness (tests/test_realdb_harness.py) is where truth comes from.

Where a format cannot carry the stream as it is, the test says so:
- cdl_json has no TRUNCATE operation: its stream leaves the truncate out.
- shareplex_json has no primary key: a row is identified by its Oracle ROWID (a `ROWID`
  column), so gold is compared per table as the multiset of rows without ROWID.
- dataworks_json has no DATETIME type: the stream's `created` goes as DATE (epoch ms), which
  decodes to an ISO-8601 instant; the renderer's `expected_state` is the fold with that.
- datahub_tuple names no key and carries no DDL: the keys of the generated tables are
  configured (var cdc_primary_keys, passed to every build), the truncate goes as deletes
  of the rows it empties, and decimals go as JSON numbers (trailing fraction zeros drop):
  the renderer's `expected_state`.
- dts_avro renders DATETIME as a DateTime record, which decodes to ISO-8601 text
  (`2024-01-02T03:04:05`): the renderer's `expected_state`. Its values are Avro bytes,
  landed as base64.
- drs_avro names no key either (configured like datahub_tuple); its records are Avro
  single-object encoded with the shipped (reconstructed) schema, landed as base64.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections import Counter

import pytest

import synth
from streams_support import assert_same_state, land_all

CANAL_FAMILY = ("canal_json", "canal_json_legacy", "drs_json", "drs_json_c")
ENVELOPES = ("debezium_json", "cdl_json", "dataworks_json", "shareplex_json", "datahub_tuple", "dts_avro",
             "drs_avro")
FORMATS = CANAL_FAMILY + ENVELOPES
# formats whose messages name no key: the generated tables' keys are configured
CONFIGURED_KEYS = ("datahub_tuple", "drs_avro")
GOLD = "select table_id, row_key, row, row_count from gold.cdc_current_rows"
HISTORY = "select * from gold.cdc_row_history order by table_id, row_key, valid_from, change_id"
N_CHANGES = 1100
BUILD_VARS = ("--vars", json.dumps({"cdc_primary_keys": {
    f"{f}.{table}": columns for f in CONFIGURED_KEYS for table, columns in synth.TABLES.items() if columns}}))


def _stream(format_id: str) -> synth.Stream:
    stream = synth.generate(format_id, n_changes=N_CHANGES, seed=FORMATS.index(format_id) + 21)
    if format_id == "cdl_json":
        stream = dataclasses.replace(stream, changes=[c for c in stream.changes if c.op != "TRUNCATE"])
    return stream


def _renderer(format_id: str):
    return importlib.import_module(f"renderers.{format_id}")


def _render(format_id: str, stream: synth.Stream) -> list[synth.Record]:
    if format_id in CANAL_FAMILY:
        return synth.render_canal_family(stream, format_id, topic=f"gen.{format_id}")
    return _renderer(format_id).render(stream, topic=f"gen.{format_id}")


def _expected(format_id: str, stream: synth.Stream) -> dict[tuple[str, str], tuple[dict, int]]:
    if format_id in CANAL_FAMILY:
        return synth.fold(stream)
    return getattr(_renderer(format_id), "expected_state", synth.fold)(stream)


@pytest.fixture(scope="module")
def streams() -> dict[str, synth.Stream]:
    return {f: _stream(f) for f in FORMATS}


@pytest.fixture(scope="module")
def records(streams) -> dict[str, list[synth.Record]]:
    return {f: _render(f, s) for f, s in streams.items()}


def _rows_per_table(state: dict[tuple[str, str], tuple[dict, int]]) -> dict[str, Counter[str]]:
    """table_id -> multiset of rows (JSON text, ROWID left out), each row row_count times."""
    tables: dict[str, Counter[str]] = {}
    for (table_id, _), (row, count) in state.items():
        row = {c: v for c, v in row.items() if c != "ROWID"}
        tables.setdefault(table_id, Counter())[json.dumps(row, sort_keys=True, ensure_ascii=False)] += count
    return tables


def _gold(rows: list[dict], db: str) -> dict[tuple[str, str], tuple[dict, int]]:
    return {(r["table_id"], r["row_key"]): (r["row"], r["row_count"])
            for r in rows if r["table_id"].startswith(db + ".")}


def assert_gold_matches(lake, streams) -> None:
    rows = lake.rows(GOLD)
    for format_id, stream in streams.items():
        expected, actual = _expected(format_id, stream), _gold(rows, stream.db)
        assert expected, format_id
        if format_id == "shareplex_json":
            assert _rows_per_table(actual) == _rows_per_table(expected), format_id
            continue
        assert_same_state(expected, actual, label=f"{format_id}: ")


def test_streams_are_rich_enough(streams, records):
    for format_id, stream in streams.items():
        assert sum(len(c.rows) for c in stream.changes) >= 1000, format_id
        ops = {(c.table, c.op) for c in stream.changes}
        assert {("orders", "UPDATE"), ("order_lines", "UPDATE"), ("events", "DELETE"), ("orders", "DELETE")} <= ops
        assert any(len(c.rows) > 1 and c.op == "UPDATE" for c in stream.changes)
        assert any(b and a and b["id"] != a["id"] for c in stream.changes if c.table == "orders"
                   for b, a in c.rows)
        if format_id != "cdl_json":
            assert ("events", "TRUNCATE") in ops, format_id
        assert len({r.partition for r in records[format_id]}) == 3


def test_in_order_streams_fold_like_python(lake, streams, records, tmp_path):
    lake.reset()
    land_all(lake, tmp_path, "ordered", records)
    lake.build(*BUILD_VARS)
    assert_gold_matches(lake, streams)
    # every DataWorks and DataHub Tuple update arrived as two halves and became one UPDATE
    halves = {r["vendor_format"]: (r["n"], r["paired"]) for r in lake.rows(
        "select vendor_format, count(*) as n, count_if(is_paired) as paired from silver.cdc_update_halves group by 1")}
    assert set(halves) == {"dataworks_json", "datahub_tuple"}
    assert all(n > 0 and paired == n for n, paired in halves.values()), halves


def test_shuffled_in_two_batches_with_redeliveries_fold_the_same_and_relanding_changes_nothing(
        lake, streams, records, tmp_path):
    lake.reset()
    disordered = {f: synth.shuffled(synth.redeliver(r, 0.10)) for f, r in records.items()}
    parts = {f: list(synth.split(d, 2)) for f, d in disordered.items()}
    land_all(lake, tmp_path, "first", {f: p[0] for f, p in parts.items()})
    lake.build(*BUILD_VARS)
    waiting = {r["vendor_format"]: r["n"] for r in lake.rows(
        "select vendor_format, count(*) as n from silver.cdc_update_halves where not is_paired group by 1")}
    assert waiting.get("dataworks_json", 0) > 0 and waiting.get("datahub_tuple", 0) > 0, \
        f"the split should leave update halves without their partner: {waiting}"
    land_all(lake, tmp_path, "second", {f: p[1] for f, p in parts.items()})
    lake.build(*BUILD_VARS)
    assert_gold_matches(lake, streams)
    assert lake.rows("select count(*) as n from silver.cdc_update_halves where not is_paired")[0]["n"] == 0
    # every re-delivery is a duplicate, and so is a record equal to an earlier one (topic,
    # key and value: Debezium's tombstones of a key deleted twice)
    duplicates = lake.rows("select count(*) as n from silver.stg_cdc__messages where is_duplicate")[0]["n"]
    delivered = [(r.topic, r.key, r.value) for recs in disordered.values() for r in recs]
    assert duplicates == len(delivered) - len(set(delivered))
    assert duplicates >= sum(len(r) for r in disordered.values()) - sum(len(r) for r in records.values())

    history = lake.rows(HISTORY)
    land_all(lake, tmp_path, "second", {f: p[1] for f, p in parts.items()})
    lake.build(*BUILD_VARS)
    assert_gold_matches(lake, streams)
    assert lake.rows(HISTORY) == history
