"""The examples lake (tests/examples/conftest.py) keeps its modules apart: no topic and no
source table gets changes from two modules, so each module's assertions see only its own
data, as if it had a lake of its own. Markers may share a table: a vendor's heartbeats name
its own fixed table (CDL's cdc_cdl.cdc_heartbeat) whoever sends them."""

from __future__ import annotations

import pytest


def test_no_two_modules_share_a_topic_or_a_table(examples):
    owner = {batch: module for module, batches in examples.batches.items() for batch in batches}
    shared = []
    for column in ("topic", "table_id"):
        for r in examples.lake.rows(f"""select {column} as name, collect_set(landing_batch_id) as batches
                                        from silver.int_cdc__decoded where {column} is not null
                                            and (record_kind <> 'marker' or '{column}' = 'topic')
                                        group by {column}"""):
            modules = sorted({owner[b] for b in r["batches"]})
            if len(modules) > 1:
                shared.append((column, r["name"], modules))
    assert shared == []


def test_every_module_landed_and_got_a_result(examples):
    if not examples.batches:
        pytest.skip("no example module is selected")
    assert all(examples.batches.values())
    assert set(examples.results) == set(examples.batches)
