"""Recovery from an interrupted build (kill -9, power loss, out of memory).

Spark writes a new table's files first and registers the table in the metastore last:
a build killed in between leaves a table folder that the metastore does not know, and
every later `create table` there fails with LOCATION_ALREADY_EXISTS, `--full-refresh`
too. Run at session start, while this process holds the CDC_HOME lock (no other build
can be writing), `remove_orphan_table_folders` deletes such folders, so that building
again is the whole recovery. A killed session also leaves its temporary, spill and shuffle
files (`paths.scratch_dir`): `empty_scratch_dir` removes them before the next session starts.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cdclake import paths

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def orphan_table_folders(spark: SparkSession, warehouse: Path) -> list[Path]:
    """Folders of the managed warehouse (`<db>.db/<table>`) that no table of that
    database owns. Hidden folders are left alone."""
    orphans = []
    for (database,) in spark.sql("show databases").collect():
        folder = paths.database_dir(database, warehouse)
        if not folder.is_dir():
            continue
        # names only: catalog.listTables reads every table's metadata (3 s on a small lake)
        tables = spark.sql(f"show tables in `{database}`").collect()
        known = {t.tableName.lower() for t in tables if not t.isTemporary}
        orphans += [p for p in sorted(folder.iterdir())
                    if p.is_dir() and not p.name.startswith((".", "_")) and p.name.lower() not in known]
    return orphans


def remove_orphan_table_folders(spark: SparkSession, warehouse: Path) -> list[Path]:
    """Delete the orphan table folders, saying so on stderr; the folders removed."""
    orphans = orphan_table_folders(spark, warehouse)
    for path in orphans:
        print(f"cdc: removed {path}: a table folder the metastore does not know, "
              "left by an interrupted build", file=sys.stderr)
        shutil.rmtree(path)
    return orphans


def empty_scratch_dir() -> None:
    """Empty the session's temporary folder (paths.scratch_dir), creating it if need be:
    what is in it now is an ended process's (one that ends normally removes its spill and
    shuffle files; Hive's session folder stays, and a killed one's everything). Only while
    this process holds the CDC_HOME lock: no other session is using it."""
    scratch = paths.scratch_dir()
    if scratch.is_dir():
        for entry in scratch.iterdir():
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
    scratch.mkdir(parents=True, exist_ok=True)
