"""What `cdc build` does after a whole, successful build (cdclake/build_record.py): with
nothing landed since and the same project it has nothing to do and starts no dbt; else
its data tests read the rows of the landing batches after the last checked one (macros
cdc_checked_batches, spark__get_where_subquery); `--full-check` reads every row.

The builds are cdclake.building.build, what `cdc build` runs, in this test process on the
session's lake (a process of its own would start Spark and dbt cold, each time), from the
whole build of the reference lake (tests/reference_lake.py): the command itself is run by
the process tests (test_cli_and_plain_dbt, test_kafka_ingest)."""

from __future__ import annotations

import pytest

from cdclake import build_record, building
from cdclake.lake import Lake
from process_support import SAMPLES, dbt_results
from reference_lake import ReferenceLake


def cdc_build(lake: Lake, *dbt_args: str, full_check: bool = False) -> tuple[bool | None, list[str]]:
    """What `cdc build` returns and says."""
    said: list[str] = []
    built = building.build(lake.spark, list(dbt_args), full_check=full_check, say=said.append, quiet=True)
    return built, said


def without_spark() -> tuple[bool, list[str]]:
    """What `cdc build` returns and says before it would start Spark."""
    said: list[str] = []
    return building.build_without_spark([], False, say=said.append), said


def failed_tests() -> list[str]:
    """The data tests the last dbt run failed."""
    return [r["unique_id"] for r in dbt_results() if r["status"] == "fail"]


def test_cdc_build_skips_a_build_with_nothing_new_and_checks_only_new_batches(
        lake: Lake, reference_lake: ReferenceLake, monkeypatch: pytest.MonkeyPatch):
    # the scope of the checks is an environment variable of this process: gone after the test
    monkeypatch.delenv(build_record.SINCE_VARIABLE, raising=False)
    # the reference lake's `cdc build`, of a new lake: every batch checked
    assert reference_lake.built is True, reference_lake.said
    assert not any("data tests check landing batches" in line for line in reference_lake.said), reference_lake.said
    last = reference_lake.batches

    built, said = cdc_build(lake)
    assert built is None  # dbt did not start
    assert said == [f"nothing to build: the last build built and checked every landing batch (through {last}) "
                    "with this project (`cdc build --full-check` builds and checks anyway)"]
    # what `cdc build` sees before it starts Spark: the same, from the record and the batch folders
    assert without_spark() == (True, said)
    assert not building.build_without_spark(["-s", "cdc_current_rows"], False, say=print)
    assert not building.build_without_spark([], True, say=print)

    # a row no build wrote: a second copy of a live key, in a checked landing batch
    lake.spark.sql("insert into gold.cdc_current_rows select * from gold.cdc_current_rows limit 1")
    built, said = cdc_build(lake, "-s", "cdc_current_rows", full_check=True)
    assert built is False, said
    assert without_spark() == (False, [])  # a dbt run forgets the project: the next build runs
    assert [test for test in failed_tests() if "unique_combination_cdc_current_rows" in test], failed_tests()

    # that dbt run may have changed tables: the next build runs, and checks the batches after
    # the last checked one
    built, said = cdc_build(lake)
    assert built is True, said
    assert any(line.startswith(f"data tests check landing batches after {last},") for line in said), said
    assert not failed_tests()
    assert without_spark()[0]

    # a new landing batch: `cdc build` must start Spark and build it
    lake.land([str(SAMPLES / "canal_inventory.ndjson")], topic="demo.canal.inventory")
    assert without_spark() == (False, [])
