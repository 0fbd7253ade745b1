"""Generated streams of eleven formats fold to the same gold as plain Python.

One logical stream per format (tests/synth.py: keyed, composite-keyed and unkeyed
tables, multi-row statements, key-changing updates, deletes, a truncate, NULLs, unicode,
long decimals, binary) is rendered as that format writes it (the Canal family by
synth.render_canal_family, the others by tests/renderers/<format>.py) and landed under
its own database name, twice: in order (databases `<format>_in_order`), and shuffled with
10% re-deliveries dealt into two landing batches built one after the other (databases
`<format>_shuffled`; DataWorks and DataHub Tuple updates whose two halves land in
different batches wait for their partner), then the second batch landed again. Both fold
to the reference fold; landing the second batch again changes nothing. The three
landings are steps of the examples lake (tests/examples/conftest.py). The generated
streams are for volume and combinations; the real-database harness
(tests/examples/test_realdb_harness.py) is where truth comes from.

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
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import synth
from streams_support import assert_same_state, land_all, state_as_multisets

CANAL_FAMILY = ("canal_json", "canal_json_legacy", "drs_json", "drs_json_c")
ENVELOPES = ("debezium_json", "cdl_json", "dataworks_json", "shareplex_json", "datahub_tuple", "dts_avro",
             "drs_avro")
FORMATS = CANAL_FAMILY + ENVELOPES
# formats whose messages name no key: the generated tables' keys are configured
CONFIGURED_KEYS = ("datahub_tuple", "drs_avro")
VARIANTS = ("in_order", "shuffled")
N_CHANGES = 1100
EXAMPLE_VARS = {"cdc_primary_keys": {
    f"{f}_{variant}.{table}": columns
    for f in CONFIGURED_KEYS for variant in VARIANTS for table, columns in synth.TABLES.items() if columns}}
# the tables of a variant: its databases are <format>_<variant>
_OF_VARIANT = "table_id rlike '^[a-z_]+_{variant}[.]'"
GOLD = "select table_id, row_key, row, row_count from gold.cdc_current_rows where " + _OF_VARIANT
HISTORY = ("select * from gold.cdc_row_history where " + _OF_VARIANT
           + " order by table_id, row_key, valid_from, change_id")


def _stream(format_id: str, variant: str) -> synth.Stream:
    stream = synth.generate(f"{format_id}_{variant}", n_changes=N_CHANGES, seed=FORMATS.index(format_id) + 21)
    if format_id == "cdl_json":
        stream = dataclasses.replace(stream, changes=[c for c in stream.changes if c.op != "TRUNCATE"])
    return stream


def _renderer(format_id: str):
    return importlib.import_module(f"renderers.{format_id}")


def _topic(format_id: str, variant: str) -> str:
    return f"gen.{variant}.{format_id}"


def _render(format_id: str, variant: str, stream: synth.Stream) -> list[synth.Record]:
    if format_id in CANAL_FAMILY:
        return synth.render_canal_family(stream, format_id, topic=_topic(format_id, variant))
    return _renderer(format_id).render(stream, topic=_topic(format_id, variant))


def _expected(format_id: str, stream: synth.Stream) -> dict[tuple[str, str], tuple[dict, int]]:
    if format_id in CANAL_FAMILY:
        return synth.fold(stream)
    return getattr(_renderer(format_id), "expected_state", synth.fold)(stream)


def _gold(rows: list[dict], db: str) -> dict[tuple[str, str], tuple[dict, int]]:
    return {(r["table_id"], r["row_key"]): (r["row"], r["row_count"])
            for r in rows if r["table_id"].startswith(db + ".")}


def assert_gold_matches(gold_rows: list[dict], streams: dict[str, synth.Stream]) -> None:
    for format_id, stream in streams.items():
        expected, actual = _expected(format_id, stream), _gold(gold_rows, stream.db)
        assert expected, format_id
        if format_id == "shareplex_json":
            assert state_as_multisets(actual, drop="ROWID") == state_as_multisets(expected, drop="ROWID"), format_id
            continue
        assert_same_state(expected, actual, label=f"{format_id}: ")


def _of_topics(variant: str) -> str:
    return f"topic like 'gen.{variant}.%'"


@dataclass(frozen=True)
class Generated:
    lake: Any
    streams: dict[str, dict[str, synth.Stream]]  # variant -> format -> stream
    records: dict[str, dict[str, list[synth.Record]]]  # variant -> format -> records as delivered
    shuffled_originals: int  # shuffled records before the re-deliveries
    # shuffled: update halves without their partner after the first batch, by format
    waiting_after_first: dict[str, int]
    # shuffled, after the second batch: its gold, history, halves still unpaired, duplicates
    gold_after_second: list[dict]
    history_after_second: list[dict]
    unpaired_after_second: int
    duplicates_after_second: int
    # shuffled, after the second batch landed again
    gold_after_reland: list[dict]
    history_after_reland: list[dict]


def land_examples(lake, tmp: Path) -> Iterator[None]:
    """In order and the shuffled first half; the shuffled second half; the second half
    again (tests/examples/conftest.py)."""
    streams = {variant: {f: _stream(f, variant) for f in FORMATS} for variant in VARIANTS}
    in_order = {f: _render(f, "in_order", s) for f, s in streams["in_order"].items()}
    rendered = {f: _render(f, "shuffled", s) for f, s in streams["shuffled"].items()}
    shuffled = {f: synth.shuffled(synth.redeliver(r, 0.10)) for f, r in rendered.items()}
    parts = {f: list(synth.split(d, 2)) for f, d in shuffled.items()}
    land_all(lake, tmp, "in_order", in_order)
    land_all(lake, tmp, "first", {f: p[0] for f, p in parts.items()})
    yield
    waiting = {r["vendor_format"]: r["n"] for r in lake.rows(
        "select vendor_format, count(*) as n from silver.cdc_update_halves "
        f"where not is_paired and {_of_topics('shuffled')} group by 1")}
    land_all(lake, tmp, "second", {f: p[1] for f, p in parts.items()})
    yield
    gold, history = lake.rows(GOLD.format(variant="shuffled")), lake.rows(HISTORY.format(variant="shuffled"))
    unpaired = lake.rows("select count(*) as n from silver.cdc_update_halves "
                         f"where not is_paired and {_of_topics('shuffled')}")[0]["n"]
    duplicates = lake.rows("select count(*) as n from silver.stg_cdc__messages "
                           f"where is_duplicate and {_of_topics('shuffled')}")[0]["n"]
    land_all(lake, tmp, "second_again", {f: p[1] for f, p in parts.items()})
    yield
    return Generated(lake, streams, {"in_order": in_order, "shuffled": shuffled},
                     sum(len(r) for r in rendered.values()), waiting, gold, history,
                     unpaired, duplicates, lake.rows(GOLD.format(variant="shuffled")),
                     lake.rows(HISTORY.format(variant="shuffled")))


def test_streams_are_rich_enough(built):
    for format_id, stream in built.streams["in_order"].items():
        assert sum(len(c.rows) for c in stream.changes) >= 1000, format_id
        ops = {(c.table, c.op) for c in stream.changes}
        assert {("orders", "UPDATE"), ("order_lines", "UPDATE"), ("events", "DELETE"), ("orders", "DELETE")} <= ops
        assert any(len(c.rows) > 1 and c.op == "UPDATE" for c in stream.changes)
        assert any(b and a and b["id"] != a["id"] for c in stream.changes if c.table == "orders"
                   for b, a in c.rows)
        if format_id != "cdl_json":
            assert ("events", "TRUNCATE") in ops, format_id
        assert len({r.partition for r in built.records["in_order"][format_id]}) == 3


def test_in_order_streams_fold_like_python(built):
    assert_gold_matches(built.lake.rows(GOLD.format(variant="in_order")), built.streams["in_order"])
    # every DataWorks and DataHub Tuple update arrived as two halves and became one UPDATE
    halves = {r["vendor_format"]: (r["n"], r["paired"]) for r in built.lake.rows(
        "select vendor_format, count(*) as n, count_if(is_paired) as paired from silver.cdc_update_halves "
        f"where {_of_topics('in_order')} group by 1")}
    assert set(halves) == {"dataworks_json", "datahub_tuple"}
    assert all(n > 0 and paired == n for n, paired in halves.values()), halves


def test_shuffled_in_two_batches_with_redeliveries_fold_the_same(built):
    waiting = built.waiting_after_first
    assert waiting.get("dataworks_json", 0) > 0 and waiting.get("datahub_tuple", 0) > 0, \
        f"the split should leave update halves without their partner: {waiting}"
    assert_gold_matches(built.gold_after_second, built.streams["shuffled"])
    assert built.unpaired_after_second == 0
    # every re-delivery is a duplicate, and so is a record equal to an earlier one (topic,
    # key and value: Debezium's tombstones of a key deleted twice)
    records = built.records["shuffled"]
    delivered = [(r.topic, r.key, r.value) for recs in records.values() for r in recs]
    assert built.duplicates_after_second == len(delivered) - len(set(delivered))
    assert built.duplicates_after_second >= len(delivered) - built.shuffled_originals


def test_landing_the_second_batch_again_changes_nothing(built):
    assert_gold_matches(built.gold_after_reland, built.streams["shuffled"])
    assert built.history_after_reland == built.history_after_second
