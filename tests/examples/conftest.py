"""One lake for every module of tests/examples: each lands its examples, one build serves all.

A module takes part by defining `land_examples(lake, tmp)`, a generator: it lands its
first batch and `yield`s, which lets the lake build; after the build it may read what the
build left, land its next batch and `yield` again; what it finally returns is its result,
which its tests get as the fixture `built`. The lake it is given queues its landings
(`land` returns the batch id; every module's landings of a step land in one write before
the build) and notes its landing batches (test_examples_lake checks that no two modules
share a topic or a table). The
modules are driven in step, so build n holds batch n of every module: a whole DAG build
on small data costs little more for every module's messages than for one module's. dbt
vars a module's data needs go in its `EXAMPLE_VARS` and hold for every build. The data
tests of the project run once, over the lake the last build left.

Modules keep to their own topics, databases and tables, and every query of theirs names
them: the lake is shared. It is built once per test run, when the first test of this
folder asks for it (pytest runs a folder's modules together, before or after any other
module could reset the lake).
"""

from __future__ import annotations

import json
import threading
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


def merged_vars(modules: list[ModuleType]) -> dict[str, Any]:
    """The union of the modules' EXAMPLE_VARS: dicts are merged key by key, any other
    value must be the same wherever it is given."""
    merged: dict[str, Any] = {}
    for module in modules:
        for name, value in getattr(module, "EXAMPLE_VARS", {}).items():
            if name not in merged:
                merged[name] = value
            elif isinstance(value, dict) and isinstance(merged[name], dict):
                clash = {k for k in value if k in merged[name] and merged[name][k] != value[k]}
                if clash:
                    raise ValueError(f"{module.__name__}: var {name} gives other values for {sorted(clash)}")
                merged[name] = {**merged[name], **value}
            elif merged[name] != value:
                raise ValueError(f"{module.__name__}: var {name} differs from another module's")
    return merged


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

    def __init__(self, lake: Lake, landings: Landings, batches: list[int]) -> None:
        self._lake = lake
        self._landings = landings
        self._batches = batches

    def land(self, files: list[Any], topic: str | None = None, declared_format: str | None = None) -> int:
        """Queue the files as one landing batch; its batch id."""
        batch_id = self._landings.queue(Landing([str(f) for f in files], topic, declared_format))
        self._batches.append(batch_id)
        return batch_id

    def __getattr__(self, name: str) -> Any:
        return getattr(self._lake, name)


# tables a reader polls while a build runs (test_examples_lake: readers see no half-written
# table); not the views over several tables (silver.cdc_changes: decoded rows and update
# pairs, two models written one after the other)
POLLED_TABLES = ("gold.cdc_current_rows", "gold.cdc_row_history", "gold.cdc_sync_status", "silver.int_cdc__decoded")


@dataclass
class ReadersSeen:
    """What a second session read while one build ran: the row counts of POLLED_TABLES
    before and after the build and every count it saw in between."""

    before: dict[str, int]
    after: dict[str, int] = field(default_factory=dict)
    seen: dict[str, list[int]] = field(default_factory=dict)


@contextmanager
def readers_polling(lake: Lake) -> Iterator[ReadersSeen]:
    """Count the rows of POLLED_TABLES over and over from a second Spark session (its own
    SQL state, the same catalog and tables) while the body runs."""
    reader = lake.spark.newSession()

    # one query a round: each table is read at its own latest version, as four queries would
    # read them, for a quarter of the planning that shares the two cores with the build
    query = "select " + ", ".join(f"(select count(*) from {table})" for table in POLLED_TABLES)

    def counts() -> dict[str, int]:
        return dict(zip(POLLED_TABLES, reader.sql(query).collect()[0], strict=True))

    seen = ReadersSeen(before=counts())
    stop = threading.Event()

    def poll() -> None:
        while not stop.wait(0.5):
            for table, count in counts().items():
                seen.seen.setdefault(table, []).append(count)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    try:
        yield seen
    finally:
        stop.set()
        poller.join()
    seen.after = counts()


@dataclass
class ExamplesLake:
    lake: Lake
    results: dict[str, Any] = field(default_factory=dict)  # module name -> what land_examples returned
    batches: dict[str, list[int]] = field(default_factory=dict)  # module name -> its landing batch ids
    readers: list[ReadersSeen] = field(default_factory=list)  # builds after the first, as readers saw them
    build_args: tuple[str, ...] = ()  # the arguments of every build (the modules' vars)

    def __getitem__(self, module_name: str) -> Any:
        return self.results[module_name]


@pytest.fixture(scope="session")
def examples(lake: Lake, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> ExamplesLake:
    """The examples lake, built in steps from the land_examples of every selected module."""
    modules = sorted({item.module for item in request.session.items
                      if hasattr(getattr(item, "module", None), "land_examples")}, key=lambda m: m.__name__)
    variables = merged_vars(modules)
    build_args = ("--vars", json.dumps(variables)) if variables else ()
    built = ExamplesLake(lake, build_args=build_args)
    lake.reset()
    landings = Landings(lake)
    active: dict[str, LandExamples] = {}
    for module in modules:
        batches = built.batches.setdefault(module.__name__, [])
        tmp = Path(tmp_path_factory.mktemp(module.__name__))
        active[module.__name__] = module.land_examples(ModuleLake(lake, landings, batches), tmp)
    builds = 0
    while active:
        for name, landing in list(active.items()):
            try:
                next(landing)
            except StopIteration as done:
                built.results[name] = done.value
                del active[name]
        landings.flush()
        if active and builds == 0:
            lake.build(*build_args, "--exclude", "resource_type:test")
            builds += 1
        elif active:
            with readers_polling(lake) as seen:
                lake.build(*build_args, "--exclude", "resource_type:test")
            built.readers.append(seen)
            builds += 1
    if builds:
        # the data tests (accounting, keys, accepted values) once, over the final lake
        lake.build(*build_args, "--select", "resource_type:test")
    return built


@pytest.fixture(scope="module")
def built(examples: ExamplesLake, request: pytest.FixtureRequest) -> Any:
    """What the requesting module's land_examples returned."""
    return examples[request.module.__name__]
