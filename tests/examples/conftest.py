"""One lake for every module of tests/examples: each lands its examples, one build serves all.

A module takes part by defining `land_examples(lake, tmp)`, a generator: it lands its
first batch and `yield`s, which lets the lake build; after the build it may read what the
build left, land its next batch and `yield` again; what it finally returns is its result,
which its tests get as the fixture `built`. The lake it is given queues its landings
(`land` returns the batch id; every module's landings of a step land in one write before
the build) and notes its landing batches (test_examples_lake checks that no two modules
share a topic or a table). The
modules are driven in step, so build n holds batch n of every module: a whole DAG build
on small data costs little more for every module's messages than for one module's (the
real-database harness's sixteen streams and ten thousand mutants land in the first step
too). dbt vars a module's data needs go in its `EXAMPLE_VARS`, or, when they follow from
the data it made, `lake.declare_vars(...)` before its first `yield`; they are the lake's
vars (`Lake.vars`) from the first build on, for every dbt command of the modules and their
tests. The data tests of the project run once, over the lake the last build left.

Modules keep to their own topics, databases and tables, and every query of theirs names
them: the lake is shared. It is built once per test run, when the first test of this
folder asks for it (pytest runs a folder's modules together, before or after any other
module could reset the lake).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

from cdclake.landing import Landing

if TYPE_CHECKING:
    from cdclake.lake import Lake

LandExamples = Generator[None, None, Any]


def merged_vars(given: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """The union of the vars each module gives (its EXAMPLE_VARS, and what it declared while
    landing): dicts are merged key by key, any other value must be the same wherever it is
    given."""
    merged: dict[str, Any] = {}
    for owner, variables in given:
        for name, value in variables.items():
            if name not in merged:
                merged[name] = value
            elif isinstance(value, dict) and isinstance(merged[name], dict):
                clash = {k for k in value if k in merged[name] and merged[name][k] != value[k]}
                if clash:
                    raise ValueError(f"{owner}: var {name} gives other values for {sorted(clash)}")
                merged[name] = {**merged[name], **value}
            elif merged[name] != value:
                raise ValueError(f"{owner}: var {name} differs from another module's")
    return merged


@dataclass
class Steps:
    """What the modules' lakes share: the vars modules declared while landing, and how long
    each build so far took."""

    declared: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    build_seconds: list[float] = field(default_factory=list)


class Landings:
    """The landings asked for since the last build: they land together, in one write,
    right before the next build (each write costs about a second however small it is)."""

    def __init__(self, lake: Lake) -> None:
        self._lake = lake
        self._pending: list[Landing] = []
        self._next_batch = 1

    def queue(self, landing: Landing) -> int:
        """Queue `landing`; the batch id it will have."""
        self._pending.append(landing)
        return self._next_batch + len(self._pending) - 1

    def flush(self) -> None:
        if not self._pending:
            return
        landed = self._lake.land_batches(self._pending)
        expected = list(range(self._next_batch, self._next_batch + len(self._pending)))
        assert [batch_id for batch_id, _ in landed] == expected, "another landing came between"
        self._next_batch += len(self._pending)
        self._pending = []


class ModuleLake:
    """The lake as one module sees it: its landings are queued (they land before the next
    build) and their batch ids noted as the module's."""

    def __init__(self, lake: Lake, landings: Landings, batches: list[int], name: str, steps: Steps) -> None:
        self._lake = lake
        self._landings = landings
        self._batches = batches
        self._name = name
        self._steps = steps

    def land(self, files: list[Any], topic: str | None = None, declared_format: str | None = None) -> int:
        """Queue the files as one landing batch; its batch id."""
        batch_id = self._landings.queue(Landing([str(f) for f in files], topic, declared_format))
        self._batches.append(batch_id)
        return batch_id

    def declare_vars(self, variables: dict[str, Any]) -> None:
        """dbt vars that the module's data needs and that are known only once it has made
        that data (the keys of the tables a real database created): declared before the
        first build, they hold for every build, as EXAMPLE_VARS do."""
        if self._steps.build_seconds:
            raise RuntimeError(f"{self._name}: vars are declared before the first build")
        self._steps.declared.append((self._name, variables))

    @property
    def last_build_seconds(self) -> float:
        """How long the last build took (every module's models, not the data tests)."""
        return self._steps.build_seconds[-1]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._lake, name)


# tables a reader polls while a build runs (test_examples_lake: readers see no half-written
# table); not the views over several tables (silver.cdc_changes: decoded rows and update
# pairs, two models written one after the other)
POLLED_TABLES = ("gold.cdc_current_rows", "gold.cdc_row_history", "gold.cdc_sync_status", "silver.int_cdc__decoded")
# how often the reader looks at the tables' files, and reads at the latest
WATCH_EVERY = 0.1
READ_EVERY = 5.0


@dataclass
class ReadersSeen:
    """What a second session read while one build ran: the row counts of POLLED_TABLES
    before and after the build and every count it saw in between."""

    before: dict[str, int]
    after: dict[str, int] = field(default_factory=dict)
    seen: dict[str, list[int]] = field(default_factory=dict)
    reads_at_writes: int = 0  # the rounds read because a table's files had changed


def _table_files(table: str) -> frozenset[tuple[str, int]]:
    """The files in a table's folder (Delta's log and data files, partition folders
    included) and their sizes: what changes while a build writes the table."""
    from cdclake.paths import table_dir

    found = set()
    for folder, _, names in os.walk(table_dir(table)):
        for path in (os.path.join(folder, name) for name in names):
            with contextlib.suppress(FileNotFoundError):  # Delta removes temporary files as it writes
                found.add((path, os.stat(path).st_size))
    return frozenset(found)


@contextmanager
def readers_polling(lake: Lake) -> Iterator[ReadersSeen]:
    """Count the rows of POLLED_TABLES from a second Spark session (its own SQL state, the
    same catalog and tables) while the body runs: a table whenever its files change (a
    build writes data files, then commits them), and every table every READ_EVERY seconds
    besides. Reading when files change reads where a half-written table would show; a
    fixed fast pace read mostly between writes and took a core's worth of CPU from the
    build. A count is a query of its own (warm, about 0.25 CPU-s of the JVM): one query
    of the four counts as scalar subqueries cost 1.34 CPU-s, more than the four alone
    (0.96), and a read at a write needs only the table written."""
    reader = lake.spark.newSession()

    def counts(tables: tuple[str, ...] = POLLED_TABLES) -> dict[str, int]:
        return {table: reader.sql(f"select count(*) from {table}").collect()[0][0] for table in tables}

    seen = ReadersSeen(before=counts())
    stop = threading.Event()

    def poll() -> None:
        files = {table: _table_files(table) for table in POLLED_TABLES}
        last_read = time.monotonic()
        while not stop.wait(WATCH_EVERY):
            now = {table: _table_files(table) for table in POLLED_TABLES}
            written = tuple(table for table in POLLED_TABLES if now[table] != files[table])
            if not written and time.monotonic() - last_read < READ_EVERY:
                continue
            seen.reads_at_writes += bool(written)
            files, last_read = now, time.monotonic()
            for table, count in counts(written or POLLED_TABLES).items():
                seen.seen.setdefault(table, []).append(count)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    try:
        yield seen
    finally:
        stop.set()
        poller.join()
    seen.after = counts()


# the lake's tables that the modules' tests read most, cached after the last build
CACHED_TABLES = ("silver.int_cdc__decoded", "silver.int_cdc__update_pairs", "gold.cdc_current_rows",
                 "gold.cdc_row_history")


@dataclass
class ExamplesLake:
    lake: Lake
    results: dict[str, Any] = field(default_factory=dict)  # module name -> what land_examples returned
    batches: dict[str, list[int]] = field(default_factory=dict)  # module name -> its landing batch ids
    readers: list[ReadersSeen] = field(default_factory=list)  # builds after the first, as readers saw them
    vars: dict[str, Any] = field(default_factory=dict)  # the modules' vars (Lake.vars while they run)

    def __getitem__(self, module_name: str) -> Any:
        return self.results[module_name]


def _build_in_steps(lake: Lake, built: ExamplesLake, modules: list[ModuleType], active: dict[str, LandExamples],
                    landings: Landings, steps: Steps) -> None:
    """Drive the modules' land_examples in step, a build after each step's landings, until
    every one has returned; then the data tests, once. The modules' vars become the lake's
    before its first build."""
    builds = 0
    while active:
        for name, landing in list(active.items()):
            try:
                next(landing)
            except StopIteration as done:
                built.results[name] = done.value
                del active[name]
        landings.flush()
        if builds == 0:
            built.vars = merged_vars([(m.__name__, getattr(m, "EXAMPLE_VARS", {})) for m in modules] + steps.declared)
            lake.vars = dict(built.vars)
        if not active:
            break
        started = time.monotonic()
        if builds == 0:
            lake.build("--exclude", "resource_type:test")
        else:
            with readers_polling(lake) as seen:
                lake.build("--exclude", "resource_type:test")
            built.readers.append(seen)
        steps.build_seconds.append(time.monotonic() - started)
        builds += 1
    if builds:
        # the data tests (accounting, keys, accepted values) once, over the final lake
        lake.build("--select", "resource_type:test")


@pytest.fixture(scope="session")
def examples(lake: Lake, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> ExamplesLake:
    """The examples lake, built in steps from the land_examples of every selected module."""
    modules = sorted({item.module for item in request.session.items
                      if hasattr(getattr(item, "module", None), "land_examples")}, key=lambda m: m.__name__)
    built = ExamplesLake(lake)
    lake.reset()
    landings = Landings(lake)
    steps = Steps()
    active: dict[str, LandExamples] = {}
    for module in modules:
        batches = built.batches.setdefault(module.__name__, [])
        tmp = Path(tmp_path_factory.mktemp(module.__name__))
        active[module.__name__] = module.land_examples(ModuleLake(lake, landings, batches, module.__name__, steps),
                                                       tmp)
    try:
        _build_in_steps(lake, built, modules, active, landings, steps)
    except BaseException:
        lake.vars = {}  # the vars of a lake that failed to build must not reach later modules
        raise
    # the modules' tests only read the lake from here on: the tables their queries read (the
    # silver views are over the first two) are kept in memory once read, which makes a
    # query of a few rows several times faster than a scan of its Delta files (a reset of
    # the lake, as later modules do, empties Spark's cache)
    for table in CACHED_TABLES:
        lake.spark.catalog.cacheTable(table)
    return built


@pytest.fixture(scope="module", autouse=True)
def examples_vars(examples: ExamplesLake) -> Iterator[None]:
    """The modules' vars are the lake's while a module of this folder runs, and none after
    it: the modules outside the folder (run after it) give their own or reset the lake."""
    examples.lake.vars = dict(examples.vars)
    yield
    examples.lake.vars = {}


@pytest.fixture(scope="module")
def built(examples: ExamplesLake, request: pytest.FixtureRequest) -> Any:
    """What the requesting module's land_examples returned."""
    return examples[request.module.__name__]
