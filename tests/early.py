"""Fixtures whose work is processes of their own, started when the session starts.

A state folder used as a user would (tests/process_support.py's user home, the `cdc run`
of tests/kafka_run.py) is mostly child processes: this process waits while they run.
Started in one background thread at the session's first test, they run while the examples
lake builds in this process's Spark (tests/examples/conftest.py); the fixture that needs
one takes its result when its first test comes, waiting if it is not done. One thread: the
jobs run one after the other, so at most one child process shares the two cores with this
process's work.

The thread and every process it starts run at a lower priority (BACKGROUND_NICENESS):
they take the cores that the examples lake leaves idle (while Spark plans a query, or dbt
parses) and do not slow it down; the modules that wait for them run last
(tests/conftest.py, pytest_collection_modifyitems), so the tests before them fill both
cores while the jobs finish. At the same priority the examples lake shared both cores
with the jobs for its whole build (its fixture took 760 s, so 464 s), and the later
tests, one process at a time, left a core idle for minutes: `make test` ran pytest in
1,246 s, so 945 s.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

# the niceness of the jobs' thread and of every process it starts (Linux: a thread's own,
# inherited by the processes it forks); the lint beside the tests (Makefile) runs at 19
BACKGROUND_NICENESS = 10


def _lower_priority() -> None:
    """Lower the calling thread's priority (on Linux, setpriority of a thread id is the
    thread's alone; this process's other threads keep theirs)."""
    os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BACKGROUND_NICENESS)


class EarlyJobs:
    """Named jobs run in one background thread, in the order they were started."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="early", initializer=_lower_priority)
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
