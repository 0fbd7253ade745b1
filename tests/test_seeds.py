"""Seeds load when their file or column types changed since their last load, or with
--full-refresh; an unchanged seed is left as it is (macros/materializations/seed.sql)."""

from __future__ import annotations

from pathlib import Path

from cdclake.lake import Lake
from process_support import dbt_results

SEED = "silver.topic_formats"


def seed_run(lake: Lake, *args: str) -> str:
    """Build the seed topic_formats alone; the message dbt gives its run."""
    lake.build("--select", "topic_formats", "--exclude", "resource_type:test", *args)
    (result,) = dbt_results()
    return str(result["message"])


def rows(lake: Lake) -> list[dict]:
    return lake.rows(f"select * from {SEED} order by priority")


def test_an_unchanged_seed_is_not_loaded_again(lake: Lake):
    seed_run(lake, "--full-refresh")
    loaded = rows(lake)
    assert len(loaded) == len((Path(__file__).parents[1] / "seeds" / "topic_formats.csv")
                              .read_text(encoding="utf-8").strip().splitlines()) - 1
    assert seed_run(lake) == f"UNCHANGED {len(loaded)}"
    assert rows(lake) == loaded


def test_a_seed_loaded_from_another_file_loads_again(lake: Lake):
    seed_run(lake)
    # as if the file had changed since the load
    lake.spark.sql(f"alter table {SEED} set tblproperties ('cdc.seed_fingerprint' = 'older')")
    lake.spark.sql(f"truncate table {SEED}")
    assert seed_run(lake).startswith("INSERT ")
    assert len(rows(lake)) > 0
    assert seed_run(lake).startswith("UNCHANGED ")


def test_full_refresh_loads_an_unchanged_seed(lake: Lake):
    seed_run(lake)
    assert seed_run(lake, "--full-refresh").startswith("CREATE ")
