"""Where the project and its state live."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[1]
PROFILES_DIR = PROJECT_DIR / "profiles"
SAMPLES_DIR = PROJECT_DIR / "samples"


def cdc_home() -> Path:
    """State folder: `$CDC_HOME`, else `./.cdc` under the current directory."""
    return Path(os.environ.get("CDC_HOME", ".cdc")).resolve()


def warehouse_dir() -> Path:
    return cdc_home() / "warehouse"


def metastore_dir() -> Path:
    return cdc_home() / "metastore_db"


def lock_file(home: Path) -> Path:
    """The lock that keeps a second process off `home` (cdclake.home_lock)."""
    return home / ".cdc.lock"
