"""What `cdc build` does after a whole, successful build (cdclake/build_record.py): with
nothing landed since and the same project it has nothing to do and starts no dbt; else
its data tests read the rows of the landing batches after the last checked one (macros
cdc_checked_batches, spark__get_where_subquery); `--full-check` reads every row."""

from __future__ import annotations

from process_support import SAMPLES, run


def test_cdc_build_skips_a_build_with_nothing_new_and_checks_only_new_batches(tmp_path):
    run(tmp_path, "cdc", "land", str(SAMPLES / "canal_inventory.ndjson"), "--topic", "demo.canal.inventory")
    first = run(tmp_path, "cdc", "build")
    assert "data tests check landing batches" not in first.stdout  # a new lake: every batch

    again = run(tmp_path, "cdc", "build")
    assert again.stdout.startswith("nothing to build: the last build built and checked every landing "
                                   "batch (through 1) with this project"), again.stdout
    assert "Running with dbt" not in again.stdout  # dbt did not start

    # a row no build wrote: a second copy of a live key, in landing batch 1
    run(tmp_path, "cdc", "sql", "insert into gold.cdc_current_rows select * from gold.cdc_current_rows limit 1")
    full = run(tmp_path, "cdc", "build", "--full-check", "-s", "cdc_current_rows", check=False)
    assert full.returncode == 1, full.stdout[-3000:]
    assert "Failure in test unique_combination_cdc_current_rows" in full.stdout, full.stdout[-3000:]

    # that dbt run may have changed tables: the next build runs, and checks batches after 1
    scoped = run(tmp_path, "cdc", "build")
    assert "data tests check landing batches after 1," in scoped.stdout, scoped.stdout[-3000:]
    assert "Running with dbt" in scoped.stdout
