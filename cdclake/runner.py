"""`cdc run --every 30s`: ingest from Kafka and build, again and again, in one process.

The Spark session stays warm between cycles, and dbt reads its saved parse of the project
(partial parsing) rather than parsing it again. Each cycle prints one line: records
ingested, changes and rejects decoded from them, build seconds, and the consumer lag
(records the topics hold beyond what has landed, and the age of the oldest of them).

A Kafka failure (a broker down) ends the cycle's ingest with a line saying so; the build
still runs over what has landed, and the next cycle tries again from the checkpoint, so
the runner catches up with nothing lost. SIGTERM or Ctrl-C stops it after the current
cycle (a second one stops it at once).
"""

from __future__ import annotations

import re
import signal
import sys
import threading
import time
from dataclasses import dataclass
from types import FrameType
from typing import TYPE_CHECKING

from cdclake.building import build
from cdclake.ingest import IngestError, Subscription, ingest
from cdclake.lag import KafkaLag, record_lag

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_interval(text: str) -> float:
    """`30s`, `2m`, `1h` or plain seconds, as seconds (more than 0)."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", text)
    if match is None or float(match[1]) <= 0:
        raise ValueError(f"--every {text!r}: give a time such as 30s, 2m or 1h")
    return float(match[1]) * _UNITS[match[2]]


@dataclass(frozen=True)
class Cycle:
    """What one cycle did."""

    number: int
    records: int
    batches: tuple[int, int] | None  # first and last landing batch it ingested
    kafka_error: str | None
    changes: int
    rejects: int
    built: bool | None  # None: nothing to build
    build_s: float
    lag: KafkaLag | None

    def line(self) -> str:
        if self.kafka_error:
            ingested = f"ingest failed ({self.kafka_error})"
        elif self.batches is None:
            ingested = "0 records"
        else:
            first, last = self.batches
            ingested = f"{self.records} records (landing batch{'es' if last > first else ''} " \
                f"{first}{f'-{last}' if last > first else ''})"
        build_note = {None: "nothing to build", True: f"build {self.build_s:.1f} s",
                      False: f"build FAILED after {self.build_s:.1f} s (see the dbt log)"}[self.built]
        lag = "lag unknown" if self.lag is None else \
            f"lag {self.lag.records} records, {self.lag.seconds:.0f} s"
        return (f"cycle {self.number}: {ingested}, {self.changes} changes, {self.rejects} rejects, "
                f"{build_note}, {lag}")


class Runner:
    """The loop of `cdc run`."""

    def __init__(self, spark: SparkSession, subscription: Subscription, every_s: float,
                 dbt_args: list[str]) -> None:
        self.spark = spark
        self.subscription = subscription
        self.every_s = every_s
        self.dbt_args = dbt_args
        self.stopping = threading.Event()

    def _stop(self, signum: int, _frame: FrameType | None) -> None:
        if self.stopping.is_set():
            raise KeyboardInterrupt
        self.stopping.set()
        print(f"cdc run: {signal.Signals(signum).name}: stopping after this cycle "
              "(again to stop at once)", file=sys.stderr, flush=True)

    def _decoded(self, batches: tuple[int, int] | None) -> tuple[int, int]:
        """Changes and rejects of the landing batches `batches` (first, last)."""
        if batches is None or not self.spark.catalog.tableExists("silver.cdc_rejects"):
            return 0, 0
        first, last = batches
        row = self.spark.sql(
            f"""select (select count(*) from silver.cdc_changes where landing_batch_id between {first} and {last}),
                       (select count(*) from silver.cdc_rejects where landing_batch_id between {first} and {last})"""
        ).collect()[0]
        return int(row[0]), int(row[1])

    def cycle(self, number: int) -> Cycle:
        records, batches, kafka_error = 0, None, None
        try:
            done = ingest(self.spark, self.subscription)
            records = done.records
            batches = (min(done.batches), max(done.batches)) if done.batches else None
        except IngestError as exc:
            kafka_error = str(exc)
        started = time.monotonic()
        built = build(self.spark, list(self.dbt_args), say=lambda _: None, quiet=True)
        build_s = time.monotonic() - started
        changes, rejects = self._decoded(batches) if built else (0, 0)
        try:
            lag = record_lag(self.spark, self.subscription)
        except IngestError:
            lag = None
        return Cycle(number, records, batches, kafka_error, changes, rejects, built, build_s, lag)

    def run(self) -> int:
        """Cycles until stopped; 1 when the last cycle's build failed, else 0."""
        previous = {sig: signal.signal(sig, self._stop) for sig in (signal.SIGTERM, signal.SIGINT)}
        failed = False
        try:
            number = 0
            while not self.stopping.is_set():
                number += 1
                started = time.monotonic()
                cycle = self.cycle(number)
                print(cycle.line(), flush=True)
                failed = cycle.built is False
                self.stopping.wait(max(0.0, self.every_s - (time.monotonic() - started)))
        except KeyboardInterrupt:
            print("cdc run: stopped", file=sys.stderr)
            return 130
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        print(f"cdc run: stopped after cycle {number}", file=sys.stderr)
        return 1 if failed else 0
