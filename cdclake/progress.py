"""A small progress display for long Spark jobs: polls the status tracker."""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark import SparkContext


class SparkProgress:
    """Print `label: tasks done/total` while Spark works (a line per 5 s off a terminal)."""

    def __init__(self, sc: SparkContext, label: str, interval: float = 0.5) -> None:
        self._sc = sc
        self._label = label
        self._interval = interval if sys.stderr.isatty() else 5.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._printed = False

    def _snapshot(self) -> tuple[int, int] | None:
        tracker = self._sc.statusTracker()
        done = total = 0
        for stage_id in tracker.getActiveStageIds():
            info = tracker.getStageInfo(stage_id)
            if info is not None:
                done += info.numCompletedTasks
                total += info.numTasks
        return (done, total) if total else None

    def _run(self) -> None:
        started = time.monotonic()
        while not self._stop.wait(self._interval):
            snap = self._snapshot()
            if snap is None:
                continue
            elapsed = time.monotonic() - started
            line = f"{self._label}: {snap[0]}/{snap[1]} tasks, {elapsed:.0f} s"
            if sys.stderr.isatty():
                sys.stderr.write("\r" + line.ljust(78))
            else:
                sys.stderr.write(line + "\n")
            sys.stderr.flush()
            self._printed = True

    def __enter__(self) -> SparkProgress:
        self._thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join()
        if self._printed and sys.stderr.isatty():
            sys.stderr.write("\r" + " " * 78 + "\r")
            sys.stderr.flush()
