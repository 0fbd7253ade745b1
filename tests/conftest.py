"""One Spark session and one lake (state under a temporary CDC_HOME) per test run."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from process_support import SESSION_HEAP_ONLY, TEST_SESSION_HEAP

if TYPE_CHECKING:
    from cdclake.lake import Lake
    from decoder_support import Decoders
    from early import EarlyJobs
    from process_support import UserHome
    from reference_lake import ReferenceLake

# A fresh state folder per run, removed when the run ends (pytest_unconfigure); set
# CDC_TEST_HOME to keep it somewhere to look at.
RUN_HOME = None if os.environ.get("CDC_TEST_HOME") else tempfile.mkdtemp(prefix="cdc-test-")
os.environ["CDC_HOME"] = os.environ.get("CDC_TEST_HOME") or str(RUN_HOME)
# dbt's compiled files and logs beside the state, so test runs don't share target/ and logs/
os.environ["DBT_TARGET_PATH"] = os.path.join(os.environ["CDC_HOME"], "dbt-target")
os.environ["DBT_LOG_PATH"] = os.path.join(os.environ["CDC_HOME"], "dbt-logs")
# the tests' own session's heap, unless one is set for the whole run (process_support)
if "CDC_DRIVER_MEMORY" not in os.environ:
    os.environ["CDC_DRIVER_MEMORY"] = TEST_SESSION_HEAP
    os.environ[SESSION_HEAP_ONLY] = "1"

# tests/examples' modules hold vendor messages other tests (test_udf_fuzz) reuse: importable
# whatever the order pytest collects in
sys.path.insert(0, str(Path(__file__).resolve().parent / "examples"))

# Copies of ../shared/vectors (real vendor and peer-project samples; see SOURCES.md there).
VECTORS = Path(__file__).resolve().parent / "vectors"


# the fixtures whose results the early jobs make (tests/early.py): the user home's, and
# those that wait for the Kafka run (the longer job)
WAITS_FOR_USER_HOME = frozenset({"user_home"})
WAITS_FOR_KAFKA_RUN = frozenset({"reference_lake", "ran"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules with a test that waits for an early job run last, those that wait for the
    Kafka run after those that wait for the user home only, each in the order they were
    collected: the tests before them keep both cores busy while the jobs finish in the
    background (tests/early.py). The examples lake's modules come first as collected."""
    def waits(item: pytest.Item) -> int:
        fixtures = set(getattr(item, "fixturenames", ()))
        return 2 if WAITS_FOR_KAFKA_RUN & fixtures else 1 if WAITS_FOR_USER_HOME & fixtures else 0

    rank: dict[object, int] = {}
    for item in items:
        rank[item.module] = max(rank.get(item.module, 0), waits(item))
    items.sort(key=lambda item: rank[item.module])


# how long the session's JVM may take to end once its Python side is gone
JVM_EXIT_SECONDS = 60


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the run's own state folder (not a CDC_TEST_HOME): stop the session's Spark
    and let its JVM end first (it ends when its standard input closes; its shutdown would
    write into the folder), else every run left its lake in /tmp."""
    if RUN_HOME is None:
        return
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    if gateway is not None:
        if SparkContext._active_spark_context is not None:
            SparkContext._active_spark_context.stop()
        jvm = gateway.proc
        gateway.shutdown()
        jvm.stdin.close()
        jvm.wait(timeout=JVM_EXIT_SECONDS)
    shutil.rmtree(RUN_HOME, ignore_errors=True)


@pytest.fixture(scope="session")
def lake() -> Iterator[Lake]:
    from cdclake.lake import Lake

    yield Lake()


@pytest.fixture(scope="session")
def vectors() -> Path:
    return VECTORS


@pytest.fixture(scope="session")
def decoders(lake: Lake) -> Decoders:
    """One decoder over given messages, no build (tests/decoder_support.py)."""
    from decoder_support import Decoders

    return Decoders(lake)


@pytest.fixture(scope="session", autouse=True)
def early(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[EarlyJobs]:
    """The state folders used as a user would, by processes of their own, that the selected
    tests need: started now, in the background (tests/early.py)."""
    from early import EarlyJobs

    jobs = EarlyJobs()
    needed = {name for item in request.session.items for name in getattr(item, "fixturenames", ())}
    if WAITS_FOR_USER_HOME & needed:
        from process_support import crashed_and_rebuilt

        home = tmp_path_factory.mktemp("user-home")
        jobs.start("user home", lambda: crashed_and_rebuilt(home))
    if WAITS_FOR_KAFKA_RUN & needed and os.environ.get("CDC_SKIP_KAFKA") != "1":
        from kafka_run import run_kafka

        lake = request.getfixturevalue("lake")
        folder = tmp_path_factory.mktemp("kafka-run")
        jobs.start("kafka run", lambda: run_kafka(lake.spark, folder))
    yield jobs
    jobs.close()


@pytest.fixture(scope="session")
def user_home(early: EarlyJobs) -> UserHome:
    """A state folder landed, crashed twice and rebuilt by plain dbt, each command in
    a process of its own (tests/process_support.py, started by `early`): the
    crash-recovery and command tests share it."""
    return early.result("user home")


@pytest.fixture(scope="session")
def reference_lake(early: EarlyJobs, lake: Lake) -> ReferenceLake:
    """The session's lake, reset, with the records of the user home and of the Kafka run
    (when it runs) landed from files and built once by `cdc build` (tests/reference_lake.py)."""
    from reference_lake import build_reference

    kafka = None if os.environ.get("CDC_SKIP_KAFKA") == "1" else early.result("kafka run")
    return build_reference(lake, kafka.dump if kafka else None)
