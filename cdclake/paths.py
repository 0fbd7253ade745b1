"""Where the project and its state live."""

from __future__ import annotations

import os
import re
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[1]
PROFILES_DIR = PROJECT_DIR / "profiles"
SAMPLES_DIR = PROJECT_DIR / "samples"


def cdc_home() -> Path:
    """State folder: `$CDC_HOME`, else `./.cdc` under the current directory."""
    return Path(os.environ.get("CDC_HOME", ".cdc")).resolve()


def warehouse_dir() -> Path:
    return cdc_home() / "warehouse"


def database_dir(database: str, warehouse: Path | None = None) -> Path:
    """The folder of a database of the managed warehouse (its tables' folders are in it)."""
    return (warehouse or warehouse_dir()) / f"{database}.db"


def table_dir(table: str) -> Path:
    """The folder of managed table `table` (`<database>.<table>`): it exists while the
    table does (a folder alone may be one a killed command left)."""
    database, name = table.split(".")
    return database_dir(database) / name


# bronze is partitioned by landing batch: a batch's folder in its table folder
_BATCH_COLUMN = "landing_batch_id"
BATCH_FOLDER = re.compile(rf"{_BATCH_COLUMN}=(\d+)")


def batch_folder(table_folder: Path, batch_id: int) -> Path:
    """The folder of landing batch `batch_id` in bronze's table folder."""
    return table_folder / f"{_BATCH_COLUMN}={batch_id}"


def metastore_dir() -> Path:
    return cdc_home() / "metastore_db"


def scratch_dir(home: Path | None = None) -> Path:
    """The session JVM's temporary folder (java.io.tmpdir) and Spark's local folder
    (spark.local.dir, its spill and shuffle files) of state folder `home` (else this
    process's): emptied at every session's start (cdclake.recovery.empty_scratch_dir)."""
    return (home or cdc_home()) / "tmp"


def lock_file(home: Path) -> Path:
    """The lock that keeps a second process off `home` (cdclake.home_lock)."""
    return home / ".cdc.lock"
