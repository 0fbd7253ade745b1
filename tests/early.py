"""Fixtures whose work is processes of their own, started when the session starts.

A state folder used as a user would (tests/process_support.py's user home, the `cdc run`
of tests/kafka_run.py) is mostly child processes: this process waits while they run.
Started in background threads at the session's first test, one per job, they run while
the examples lake builds in this process's Spark (tests/examples/conftest.py); the fixture
that needs one takes its result when its first test comes, waiting if it is not done.

The threads and every process they start run at a lower priority (BACKGROUND_NICENESS):
they take the cores that the examples lake leaves idle (while Spark plans a query, or dbt
parses) and do not slow it down; the modules that wait for them run last, those that wait
for the Kafka run (the longer job) after those that wait for the user home only
(tests/conftest.py, pytest_collection_modifyitems), so the tests before them fill both
cores while the jobs finish. A niceness holds only within the session of its process
(Linux's autogroup scheduling gives each session an equal share of the CPU, whatever the
niceness of its processes): a child process that must be killed with its children has a
process group of its own, never a session of its own. The broker and the `cdc` processes
of the Kafka run and the user home's killed builds had sessions of their own, and took as
much CPU as this process: the examples lake took 362 s in the suite (208 s alone), and
pytest ran the suite in 753 s. In the same session but with one thread for both jobs,
the Kafka run ended after the tests before the last modules, and the first of those waited
75 s for it, 25 of them with both cores idle (675 s); with a thread per job, both cores
stay busy until the last modules (655 s).

The jobs fill the second core after the examples lake too: the modules between it and
the last ones (decoder, parser and UDF tests) keep this process busy on about one core
and a third. Sampled from /proc/stat every 10 s on 2 cores, at niceness 10 the machine
was 99-100% busy until the last modules waited for the Kafka run (ended at 891 s). With
the Kafka run at niceness 0 (the user home at 10) that job ended at 383 s, but the user
home ended at 628 s, and from there the modules alone kept the machine 50-89% busy: the
idle CPU over pytest's run rose from 108 and 127 core-seconds (two runs) to 176 (pytest
880 s against 874 and 974 s at niceness 10: this machine's spread).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

# the niceness of the jobs' threads and of every process they start (Linux: a thread's own,
# inherited by the processes it forks); the lint beside the tests (Makefile) runs at 19
BACKGROUND_NICENESS = 10
# threads for the jobs: one each (tests/conftest.py starts two)
MAX_JOBS = 4


def _lower_priority() -> None:
    """Lower the calling thread's priority (on Linux, setpriority of a thread id is the
    thread's alone; this process's other threads keep theirs)."""
    os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BACKGROUND_NICENESS)


class EarlyJobs:
    """Named jobs, each run in a background thread of its own."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=MAX_JOBS, thread_name_prefix="early", initializer=_lower_priority)
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
