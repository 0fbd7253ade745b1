"""One `cdc build`: what `cdc build` runs and what `cdc run` runs each cycle.

Nothing to do (bronze empty, or its last landing batch built and checked by the last whole
build, with the same project) starts no dbt, and `cdc build` sees it before it starts Spark
(`build_without_spark`); else `dbt build` in this process, whose data tests check
the landing batches since the last checked build (cdclake.build_record). With the project
of the last whole build, the seeds and their data tests, which read no landed record and
were loaded and checked from the same files, are left out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from cdclake import build_record
from cdclake.landing import BRONZE_TABLE

# the seeds and (dbt's eager indirect selection) the data tests that read them
WITHOUT_SEEDS = ["--exclude", "resource_type:seed"]

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def last_batch(spark: SparkSession) -> int | None:
    """Bronze's last landing batch; None while bronze is empty."""
    value = spark.sql(f"select max(landing_batch_id) from {BRONZE_TABLE}").collect()[0][0]
    return None if value is None else int(value)


def build(spark: SparkSession, dbt_args: list[str], full_check: bool = False,
          say: Callable[[str], None] = print, quiet: bool = False) -> bool | None:
    """Build what is new; True when dbt succeeded, None when there was nothing to build.
    `quiet`: dbt prints errors only."""
    from cdclake.dbt_invoke import run_dbt

    last = last_batch(spark)
    if last is None:
        _say_empty(say)
        return None
    project = build_record.project_digest()  # before dbt runs: what this build runs
    found = build_record.recorded()
    if not dbt_args and not full_check and build_record.up_to_date(found, last, project):
        _say_up_to_date(last, say)
        return None
    since = build_record.check_scope(found, dbt_args, full_check)
    if since is not None:
        say(f"data tests check landing batches after {since}, those built since the last checked "
            "build (`cdc build --full-check` checks every batch)")
    # `cdc build` with dbt arguments or --full-check builds what they say, seeds included
    seeds = [] if dbt_args or full_check or not build_record.built_with(found, project) else WITHOUT_SEEDS
    if seeds:
        say("seeds left out, with their data tests: the last build loaded and checked them from "
            "the same files")
    if not run_dbt(["build", *(["--quiet"] if quiet else []), *dbt_args, *seeds]):
        return False
    if build_record.is_whole_build(dbt_args):
        build_record.record(last, project)
    return True


def build_without_spark(dbt_args: list[str], full_check: bool, say: Callable[[str], None] = print) -> bool:
    """What `cdc build` checks before it starts Spark: True when it has nothing to do,
    said as `build` says it: bronze has no landing batch folder (nothing landed), or
    build_record.nothing_new; False when it must build."""
    last = build_record.last_landed_folder()
    if last is None:
        _say_empty(say)
        return True
    if build_record.nothing_new(last, dbt_args, full_check):
        _say_up_to_date(last, say)
        return True
    return False


def _say_empty(say: Callable[[str], None]) -> None:
    say(f"nothing to build: {BRONZE_TABLE} is empty (land records with `cdc land` first)")


def _say_up_to_date(last: int, say: Callable[[str], None]) -> None:
    say(f"nothing to build: the last build built and checked every landing batch (through "
        f"{last}) with this project (`cdc build --full-check` builds and checks anyway)")
