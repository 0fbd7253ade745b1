"""What the last whole, successful `cdc build` built and checked, kept in table properties
of bronze (so a lake landed afresh starts without it):

* `cdc.checked_through_batch`: the last landing batch it built and checked. The data tests
  of the next `cdc build` check the batches after it (the environment variable
  CDC_CHECK_SINCE_BATCH, read by macro cdc_checked_batches). Every batch is checked by
  `cdc build --full-check`, `--full-refresh`, the first build of a lake and plain dbt.
* `cdc.built_project`: a digest of the project files it ran. While bronze has no batch
  after the checked one and the project is the same, `cdc build` has nothing to do and
  does not start dbt. Any dbt run of the project (`cdc dbt`, plain dbt: the plugin
  dbt_cdclake) forgets it first, since it may change tables. While it is the project of
  the next build too, that build leaves out the seeds and their data tests: they read no
  landed record, and the last build loaded and checked them from the same files.
"""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING

from cdclake import paths
from cdclake.landing import BRONZE_TABLE

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SINCE_VARIABLE = "CDC_CHECK_SINCE_BATCH"
CHECKED = "cdc.checked_through_batch"
PROJECT = "cdc.built_project"
# what a build runs: the dbt project, the UDFs, the session settings
_PROJECT_PARTS = ("dbt_project.yml", "profiles/profiles.yml", "models", "macros", "seeds", "data-tests",
                  "udfs", "cdclake", "dbt_cdclake")
# dbt options that build part of the project: such a build records nothing
_SELECTING = ("-s", "--select", "-m", "--models", "--exclude", "--selector", "--resource-type",
              "--resource-types", "--exclude-resource-type", "--exclude-resource-types")


def recorded(spark: SparkSession) -> dict[str, str]:
    """Bronze's table properties, among them what the last whole build recorded (one read
    per `cdc build`: up_to_date and check_scope take it)."""
    return {r["key"]: r["value"] for r in spark.sql(f"show tblproperties {BRONZE_TABLE}").collect()}


def _last_checked(found: dict[str, str]) -> int | None:
    """The last landing batch a whole, successful `cdc build` checked; None when unknown."""
    text = found.get(CHECKED, "")
    return int(text) if text.isdigit() else None


def project_digest() -> str:
    """SHA-256 of the path and content of every file a build runs."""
    digest = hashlib.sha256()
    for part in _PROJECT_PARTS:
        root = paths.PROJECT_DIR / part
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file()
                                                       and "__pycache__" not in p.parts)
        for path in files:
            digest.update(str(path.relative_to(paths.PROJECT_DIR)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def is_whole_build(dbt_args: list[str]) -> bool:
    return not any(arg.split("=", 1)[0] in _SELECTING for arg in dbt_args)


def up_to_date(found: dict[str, str], last_batch: int, project: str) -> bool:
    """The last whole build (`found`: recorded) built and checked `last_batch` (bronze's
    last) with `project` (project_digest)."""
    return found.get(CHECKED) == str(last_batch) and built_with(found, project)


def built_with(found: dict[str, str], project: str) -> bool:
    """The last whole, successful build (`found`: recorded) ran `project` (project_digest),
    seeds and data tests included, and nothing ran dbt since."""
    return found.get(PROJECT) == project


def check_scope(found: dict[str, str], dbt_args: list[str], full_check: bool) -> int | None:
    """The bound of this build's checks (batches after it; `found`: recorded), or None to
    check every batch; sets or clears CDC_CHECK_SINCE_BATCH to match."""
    since = None if full_check or "--full-refresh" in dbt_args else _last_checked(found)
    if since is None:
        os.environ.pop(SINCE_VARIABLE, None)
    else:
        os.environ[SINCE_VARIABLE] = str(since)
    return since


def record(spark: SparkSession, last_batch: int, project: str) -> None:
    """Note that a whole build of `project` (project_digest) built and checked every batch
    up to `last_batch`."""
    spark.sql(f"alter table {BRONZE_TABLE} set tblproperties "
              f"('{CHECKED}' = '{int(last_batch)}', '{PROJECT}' = '{project}')")


def forget_project(spark: SparkSession) -> None:
    """Before any dbt run: the tables may change, so the next `cdc build` runs."""
    if spark.catalog.tableExists(BRONZE_TABLE):
        spark.sql(f"alter table {BRONZE_TABLE} unset tblproperties if exists ('{PROJECT}')")
