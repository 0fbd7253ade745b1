"""Fixtures whose work is processes of their own, started when the session starts.

A state folder used as a user would (tests/process_support.py's user home, the `cdc run`
of tests/kafka_run.py) is mostly child processes: this process waits while they run.
Started in one background thread at the session's first test, they run while the examples
lake builds in this process's Spark (tests/examples/conftest.py), whose planning leaves a
core idle much of the time; the fixture that needs one takes its result when its first
test comes, waiting if it is not done. One thread: the jobs run one after the other, so
at most one child process shares the two cores with this process's builds.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any


class EarlyJobs:
    """Named jobs run in one background thread, in the order they were started."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="early")
        self._jobs: dict[str, Future[Any]] = {}

    def start(self, name: str, job: Callable[[], Any]) -> None:
        self._jobs[name] = self._pool.submit(job)

    def result(self, name: str) -> Any:
        """What the job `name` returned (raising what it raised), once it has ended."""
        if name not in self._jobs:
            raise KeyError(f"no early job {name!r}: the fixture `early` (tests/conftest.py) starts each job "
                           "when a selected test needs its fixture")
        return self._jobs[name].result()

    def close(self) -> None:
        """Wait for the jobs still running (their child processes end with them)."""
        self._pool.shutdown(wait=True, cancel_futures=True)
