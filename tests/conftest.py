"""One Spark session and one lake (state under a temporary CDC_HOME) per test run."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

_HOME = tempfile.mkdtemp(prefix="cdc-test-")
os.environ["CDC_HOME"] = _HOME

# Copies of ../shared/vectors (real vendor and peer-project samples; see SOURCES.md there).
VECTORS = Path(__file__).resolve().parent / "vectors"


@pytest.fixture(scope="session")
def lake() -> Iterator["Lake"]:
    from cdclake.lake import Lake

    yield Lake()


@pytest.fixture(scope="session")
def vectors() -> Path:
    return VECTORS
