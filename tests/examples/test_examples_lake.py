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


def test_readers_during_a_build_see_each_table_before_or_after_it(examples):
    """A second session counting rows while a build commits sees every table as it was
    before the build or as the build left it, never a half-written table: each model's
    write is one Delta commit (gold's MERGE replaces the touched keys' rows in one)."""
    if not examples.readers:
        pytest.skip("the selected modules land in one step: no incremental build")
    changed = set()
    for build in examples.readers:
        # some reads came as the build wrote the tables' files (a half-written table's moment)
        assert build.reads_at_writes > 0, build
        for table, counts in build.seen.items():
            assert counts, (table, "no count was read during the build")
            assert set(counts) <= {build.before[table], build.after[table]}, (table, build)
            if build.before[table] != build.after[table]:
                changed.add(table)
    # the builds changed the tables, so a half-written state had something to show
    assert {"gold.cdc_current_rows", "gold.cdc_row_history"} <= changed


def test_deletion_vectors_only_on_the_tables_a_merge_changes(examples):
    """Gold's MERGE targets mark replaced rows in deletion vectors; a table that only grows
    has none (Spark would look for them at every scan of it)."""
    def deletion_vectors(table: str) -> str:
        rows = examples.lake.rows(f"show tblproperties {table} ('delta.enableDeletionVectors')")
        return rows[0]["value"]

    assert {t: deletion_vectors(t) for t in ("gold.cdc_row_history", "gold.cdc_current_rows")} == \
        {"gold.cdc_row_history": "true", "gold.cdc_current_rows": "true"}
    for table in ("silver.stg_cdc__messages", "silver.int_cdc__decoded", "silver.int_cdc__update_pairs",
                  "silver.cdc_table_columns", "gold.cdc_sync_status"):
        assert deletion_vectors(table) == "false", table
        assert examples.lake.rows(f"describe detail {table}")[0]["format"] == "delta", table


HISTORY_COLUMNS = ("table_id, row_key, row, row_count, op, valid_from, valid_to, is_current, is_deleted, is_keyed, "
                   "sort_key, kafka_partition, kafka_offset, row_index, change_id, landing_batch_id")


def _multiset_difference(lake, columns: str, left: str, right: str) -> list[dict]:
    """Up to 20 rows (`columns` of the queries `left` and `right`) that one of them holds
    more often than the other, with `surplus`: how many more copies `left` has (negative:
    `right` has more). Computed by Spark, so that the rows never come to Python; the map
    `row` compares as its entries sorted (a map's order is not its value)."""
    normalised = ", ".join("array_sort(map_entries(row)) as row" if column == "row" else column
                           for column in columns.split(", "))
    return lake.rows(f"""
        select {columns}, sum(side) as surplus
        from (select {normalised}, 1 as side from ({left}) as l
              union all
              select {normalised}, -1 as side from ({right}) as r) as both_sides
        group by {columns}
        having sum(side) <> 0
        limit 20""")


def test_incremental_builds_leave_the_gold_of_one_full_build(examples):
    """Each incremental build folded only what was new: new changes onto each key's current
    version, keys with late or tied changes, patches or a new TRUNCATE from all their
    changes (gold/cdc_row_history.sql). The history and current rows they left equal
    what one full build folds from all the changes, row for row, for every module."""
    if not examples.readers:
        pytest.skip("the selected modules land in one step: no incremental build")
    lake = examples.lake
    full_history = lake.compile("--select", "cdc_row_history", "--full-refresh")
    assert lake.rows("select count(*) as n from gold.cdc_row_history")[0]["n"] > 0
    assert _multiset_difference(lake, HISTORY_COLUMNS, "select * from gold.cdc_row_history", full_history) == []
    live = ("select table_id, row_key, row, row_count, sort_key, change_id from gold.cdc_row_history "
            "where is_current and not is_deleted")
    current = ("select table_id, row_key, row, row_count, sort_key, last_change_id as change_id "
               "from gold.cdc_current_rows")
    assert _multiset_difference(lake, "table_id, row_key, row, row_count, sort_key, change_id", current, live) == []
    # the work table of the touched keys (macros/gold/cdc_history_touched_keys.sql) went with the build
    assert not lake.spark.catalog.tableExists("gold.cdc_row_history__touched_keys")
