"""The decoded-row contract (macros/helpers/cdc_decoded_contract.sql) holds for every
decoder: each emits exactly the contract's columns with the contract's types before any
cast, lets the batch window through to the messages it reads, and the staging docs list
the same columns. No build: every decoder is compiled over an empty VALUES-like view."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
FORMATS: list[str] = yaml.safe_load((ROOT / "dbt_project.yml").read_text())["vars"]["cdc_decoded_formats"]


@pytest.fixture(scope="module")
def contract(lake) -> list[dict[str, Any]]:
    return json.loads(lake.compile_inline("{{ tojson(cdc_decoded_contract()) }}"))


@pytest.mark.parametrize("format_id", FORMATS)
def test_decoder_emits_the_contract_columns_and_types(lake, decoders, contract, format_id):
    decoders.load(format_id, [])
    schema = lake.spark.sql(decoders.decoder_sql(format_id)).schema
    actual = [(f.name, f.dataType.simpleString()) for f in schema.fields]
    expected = [(c["name"], c["type"].replace(" ", "")) for c in contract]
    assert actual == expected


@pytest.mark.parametrize("format_id", FORMATS)
def test_the_batch_window_reaches_the_messages_a_decoder_reads(lake, decoders, format_id):
    """int_cdc__decoded filters a decoder's output by landing batch: Spark must push that
    filter down to the messages (every decoder works one message at a time), or each
    build would decode every message again."""
    decoders.load(format_id, [])
    plan = lake.spark.sql(
        f"explain extended select * from ({decoders.decoder_sql(format_id)}) where landing_batch_id > 41"
    ).collect()[0][0]
    optimized = plan.split("== Optimized Logical Plan ==")[1].split("== Physical Plan ==")[0]
    lines = [line for line in optimized.splitlines() if line.strip()]
    filters = [i for i, line in enumerate(lines) if re.search(r"Filter .*landing_batch_id#\d+L > 41", line)]
    assert filters, f"no filter on landing_batch_id in\n{optimized}"
    below = lines[filters[-1] + 1:]
    assert all(re.match(r"\s*[+:\- ]*(LocalRelation|LogicalRDD|Relation|Project|SubqueryAlias)", line)
               or "Filter" in line for line in below[:2]), f"the window stops above the decoder:\n{optimized}"
    assert len(below) <= 2, f"the window stops above the decoder:\n{optimized}"


def test_staging_docs_list_the_contract_columns(contract):
    models = yaml.safe_load((ROOT / "models/silver/staging/_staging__models.yml").read_text())["models"]
    names = [c["name"] for c in contract]
    for model in models:
        if model["name"] != "stg_cdc__messages":
            assert [c["name"] for c in model["columns"]] == names, model["name"]


def test_a_column_outside_the_contract_is_a_compile_error(lake, capfd):
    with pytest.raises(RuntimeError, match="dbt compile --inline failed"):
        lake.compile_inline("select {{ cdc_decoded_row(left_out=['pair_key', 'detial']) }}")
    assert "cdc_decoded_row: detial not in the decoded-row contract" in capfd.readouterr().out


@pytest.mark.parametrize("format_id", FORMATS)
def test_an_empty_value_is_the_decoders_reject(decoders, format_id):
    """Routing passes empty values of a known format on; each decoder rejects them (a
    Debezium tombstone, an empty value with a key, is the one empty value with a meaning)."""
    rows = decoders.rows(format_id, [{"value": None}, {"value": ""}])
    assert [(r["record_kind"], r["reject_stage"], r["reject_reason"]) for r in rows] == [
        ("reject", "decode", "empty message value")] * 2


def test_a_debezium_tombstone_needs_its_key(decoders):
    rows = decoders.rows("debezium_json", [{"value": None, "key": '{"id": 1}'}, {"value": None}])
    assert [(r["record_kind"], r["marker_kind"], r["reject_reason"]) for r in rows] == [
        ("marker", "TOMBSTONE", None), ("reject", None, "empty message value")]
