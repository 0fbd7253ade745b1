"""`cdc demo`: land the bundled samples, build, and print what happened."""

from __future__ import annotations

import json
import time

import yaml

from cdclake import paths
from cdclake.lake import Lake
from cdclake.tables import displayable, format_table

SUMMARY_QUERIES: list[tuple[str, str]] = [
    ("Records landed, by topic and format",
     """select topic, coalesce(vendor_format, '-') as format, format_source,
               count(*) as records, count_if(is_duplicate) as duplicates
        from silver.stg_cdc__messages group by 1, 2, 3 order by 1"""),
    ("Changes, by format and op",
     "select vendor_format, op, count(*) as changes from silver.cdc_changes group by 1, 2 order by 1, 2"),
    ("DDL events", "select table_id, ddl_action, ddl_parse_error, left(ddl_text, 60) as ddl "
                   "from silver.cdc_ddl_events order by 1"),
    ("Markers", "select vendor_format, marker_kind, count(*) as markers from silver.cdc_heartbeats group by 1, 2"),
    ("Update halves (DataWorks UPDATE_BEFOR + UPDATE_AFTER, DataHub Tuple U rows), paired into one UPDATE each",
     """select vendor_format, table_id, pair_key, half, is_paired from silver.cdc_update_halves
        order by 1, 2, 3, 4"""),
    ("Sync status (cdc status): per topic and table",
     """select topic, table_id, changes, updates, deletes, ddl_events as ddl, heartbeats, rejects,
               last_event_ts, last_change_lag_seconds as lag_s, last_heartbeat_ts
        from gold.cdc_sync_status order by topic, table_id nulls first"""),
    ("Gold: history of a MongoDB document patched by $set, dotted paths, $inc and $unset (DRS for DDS)",
     """select op, valid_from, row['address'] as address, row['items'] as items, row['qty'] as qty
        from gold.cdc_row_history where table_id = 'ljx.carts' order by valid_from"""),
    ("Rejects, with reasons",
     "select reject_stage, reject_reason, count(*) as records from silver.cdc_rejects group by 1, 2 order by 3 desc"),
    ("Gold: live rows per table",
     """select table_id, count(*) as live_keys, sum(row_count) as rows
        from gold.cdc_current_rows group by 1 order by 1"""),
    ("Gold: a few current rows",
     """select table_id, row_key, row, last_op from gold.cdc_current_rows
        where table_id in ('inventory.products2', 'test01.test', 'shop.orders')
        order by table_id, row_key limit 8"""),
    ("Typed gold (models/demo/shop__orders.sql is one line: {{ cdc_table('shop.orders') }})",
     "select * from gold.shop__orders order by id limit 5"),
    ("Typed gold: every MySQL type of the Paimon all-types sample (a few of its columns)",
     """select pt, _tinyint1, _bigint_unsigned, _decimal, _numeric, _date, _datetime6, _timestamp,
               _varbin, _json, _year, _time from gold.paimon__all_types"""),
    ("Typed gold: DTS Avro orders", "select * from gold.dts_shop__orders order by 1 limit 3"),
    ("Schema history (silver.cdc_table_columns) of shop.orders",
     """select column_position as pos, column_name, vendor_type, table_type, type_note, first_seen_ts, is_dropped
        from silver.cdc_table_columns where table_id = 'shop.orders' and is_current_type order by 1"""),
    ("Cast failures of the typed models (gold.cdc_cast_failures)",
     """select table_id, column_name, table_type, cast_failures, example_value from gold.cdc_cast_failures
        where cast_failures > 0 order by 1, 2"""),
    ("Gold: history of one row (inventory.products2, id 106)",
     """select row_key, op, valid_from, valid_to, is_current, is_deleted, row['description'] as description
        from gold.cdc_row_history where table_id = 'inventory.products2' and row_key = '["106"]'
        order by valid_from"""),
]


def run_demo() -> int:
    started = time.monotonic()
    lake = Lake()
    manifest = yaml.safe_load((paths.SAMPLES_DIR / "manifest.yml").read_text(encoding="utf-8"))
    primary_keys = {table: columns for entry in manifest for table, columns in entry.get("primary_keys", {}).items()}
    for entry in manifest:
        batch_id, landed = lake.land([paths.SAMPLES_DIR / entry["file"]], topic=entry.get("topic"),
                                     declared_format=entry.get("format"))
        for item in landed:
            print(f"landed {item.records:>4} records of {entry['file']} (batch {batch_id})")
    print("building (dbt build) ...", flush=True)
    lake.build("--vars", json.dumps({"cdc_primary_keys": primary_keys, "cdc_demo_models": True}))
    for title, query in SUMMARY_QUERIES:
        frame = displayable(lake.spark.sql(query))
        print(f"\n== {title}")
        print(format_table(frame.columns, frame.collect(), max_width=70))
    print(f"\ndemo done in {time.monotonic() - started:.0f} s; state in {paths.cdc_home()}. "
          "Try: cdc sql \"select * from gold.cdc_current_rows limit 5\"")
    return 0
