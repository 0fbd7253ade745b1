"""`cdc run` from a real Kafka broker, killed and restarted as a user's would be: the
state folder that tests/test_kafka_ingest.py checks, made by processes of their own
(tests/early.py starts it when the session starts).

Generated streams (Canal JSON with re-deliveries, Debezium JSON with tombstones, DTS Avro's
binary values) and the change log of a real MariaDB (the real-database harness's workload:
every column type at its limits, hostile text, key changes, DDL, TRUNCATE), rendered as
Canal JSON and as DTS Avro, are produced into topics of 3 partitions of a broker of the
run's own. One state folder takes them in as a user would run it: `cdc run` killed with
SIGKILL while its ingest writes its second landing batch, then killed in its first build
(at the history's creation); `cdc ingest` after the checkpoint has forgotten that its last
micro-batch finished (the state a kill between the write and Spark's commit leaves); `cdc
run` again, through a broker outage, to SIGTERM. Then every record the topics hold is read
back with Spark's batch reader into a file, for the test session's lake to land and build.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import synth
from kafka_support import Broker, create_topics, dump_records, produce
from process_support import BIN, PROJECT, dbt_results, dbt_target, home_env, run
from realdb.fixtures import capture_mariadb_workload
from realdb.model import Capture
from realdb.render_alibaba import render_dts_avro
from realdb.render_canal import render_canal_json
from realdb.workload import POSTGRES_SCALE
from renderers import dts_avro

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

TOPICS = ["demo.canal.kgen", "kgen.debezium", "kgen.dts-avro", "demo.canal.krdb", "krdb.dts-avro"]
# and one more, produced to while `cdc run` runs: the topics `cdc run` (and `cdc ingest` in
# its state folder, with the same checkpoint) reads
EXTRA_TOPIC = "demo.canal.krun"
RUN_TOPICS = [*TOPICS, EXTRA_TOPIC]


def generated_canal() -> list[synth.Record]:
    """The generated Canal JSON stream of TOPICS[0], with re-deliveries: a record produced
    twice sits at two offsets (the second one a duplicate)."""
    canal = synth.render_canal_family(synth.generate("kgen_canal", n_changes=400, seed=41), "canal_json",
                                      topic=TOPICS[0])
    return synth.redeliver(canal, 0.05)


def _records(capture: Capture) -> list[synth.Record]:
    """The generated streams, and the MariaDB change log `capture` rendered as the vendors do."""
    from renderers import debezium_json

    debezium = debezium_json.render(synth.generate("kgen_debezium", n_changes=300, seed=42), topic=TOPICS[1])
    avro = dts_avro.render(synth.generate("kgen_dts", n_changes=300, seed=43), topic=TOPICS[2])
    real = render_canal_json(capture, "krdb_canal", TOPICS[3]) + render_dts_avro(capture, "krdb_dts", TOPICS[4])
    return generated_canal() + debezium + avro + real


def _forget_last_commit(home: Path) -> None:
    """The checkpoint forgets that its last micro-batch finished (as a kill between the
    landing and Spark's commit leaves it): the next run runs that micro-batch again."""
    commits = sorted((p for p in next((home / "checkpoints").iterdir()).joinpath("commits").iterdir()
                      if p.name.isdigit()), key=lambda p: int(p.name))
    commits[-1].unlink()
    commits[-1].with_name(f".{commits[-1].name}.crc").unlink(missing_ok=True)  # Hadoop's checksum of it


# --timeout of the runs that are killed: `cdc`'s default. Their first ingest starts while
# the examples lake keeps both cores busy (tests/early.py) and a broker at a lower priority
# can take more than 5 s to answer: the run printed "ingest failed (... Timed out waiting for
# a node assignment ...)" as its first cycle and was killed in its second (CI of 064e55b)
KILLED_RUN_TIMEOUT_S = 30
# and of the run through the broker outage: short, so that the outage is seen soon
OUTAGE_RUN_TIMEOUT_S = 5


class Running:
    """A `cdc run` process in its own process group, its output in a file, giving up on
    the broker after `timeout_s` per call (JVM options: process_support.home_env)."""

    def __init__(self, home: Path, bootstrap: str, *extra: str, timeout_s: int = KILLED_RUN_TIMEOUT_S) -> None:
        self.out = home / f"run-{time.monotonic_ns()}.log"
        with self.out.open("w") as log:
            self.process = subprocess.Popen(
                [str(BIN / "cdc"), "run", "--every", "2s", "--bootstrap-servers", bootstrap,
                 "--topics", ",".join(RUN_TOPICS), "--timeout", str(timeout_s), *extra],
                cwd=PROJECT, env=home_env(home), process_group=0, stdout=log,
                stderr=subprocess.STDOUT)

    def cycles(self) -> list[str]:
        return [line for line in self.out.read_text().splitlines() if line.startswith("cycle ")]

    def wait_for(self, predicate, after: int = 0, timeout: float = 600) -> str:
        """The first cycle line after the first `after` that `predicate` accepts."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [line for line in self.cycles()[after:] if predicate(line)]
            if found:
                return found[0]
            if self.process.poll() is not None:
                raise AssertionError(f"cdc run exited {self.process.returncode}:\n{self.out.read_text()[-3000:]}")
            time.sleep(0.2)
        raise AssertionError(f"no such cycle:\n{self.out.read_text()[-3000:]}")

    def wait_until(self, path: Path, timeout: float = 600) -> None:
        deadline = time.monotonic() + timeout
        while not path.exists():
            assert time.monotonic() < deadline and self.process.poll() is None, self.out.read_text()[-3000:]
            time.sleep(0.02)

    def kill(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()


def records_of(line: str) -> int:
    """The records a cycle line says it ingested (-1: not a line of an ingest)."""
    match = re.match(r"cycle \d+: (\d+) records", line)
    return int(match[1]) if match else -1


def _extra(seed: int) -> list[synth.Record]:
    return synth.render_canal_family(synth.generate(f"krun{seed}", n_changes=150, seed=seed), "canal_json",
                                     topic=EXTRA_TOPIC)


@dataclass(frozen=True)
class KafkaRun:
    home: Path
    killed: dict[str, int]  # kill point -> cycle lines the run printed before it
    replayed: subprocess.CompletedProcess[str]  # `cdc ingest` of the micro-batch whose commit was forgotten
    outage: str  # the cycle line of the ingest the stopped broker failed
    outage_seconds: float  # from the broker's stop to that line
    caught_up: str  # the first cycle line after the broker came back with what was produced meanwhile
    exit_code: int
    last_output: str
    last_build: list[str]  # the dbt nodes the last build ran (run_results.json)
    seed_nodes: list[str]  # the seeds and the data tests that read them (manifest.json)
    dump: Path  # every record of RUN_TOPICS, as the JSON lines `cdc land` takes
    produced: int


def run_kafka(spark: SparkSession, folder: Path) -> KafkaRun:
    """`cdc run` over RUN_TOPICS of a broker of its own in `folder`: killed with SIGKILL in
    its first ingest and, started again, in its first build; then `cdc ingest` with the
    last micro-batch's commit forgotten; `cdc run` again, the broker stopped and started
    under it; then SIGTERM. `spark` (the test session's) creates the topics, produces and
    reads them back."""
    broker = Broker(folder / "kafka")
    broker.start()
    try:
        return _run_kafka(spark, broker, folder)
    finally:
        broker.stop()


def _run_kafka(spark: SparkSession, broker: Broker, folder: Path) -> KafkaRun:
    # the MariaDB workload at PostgreSQL's volume: its edge rows, DDL, TRUNCATE, key changes
    # and hot keys whole, 40% of its other changes (3,009 records in all, against 5,644 at
    # full volume: each costs a `cdc run` cycle and the reference lake's build its
    # decoding); tests/test_realdb_capture.py checks the capture of the full volume
    records = _records(capture_mariadb_workload(folder / "mariadb", scale=POSTGRES_SCALE))
    create_topics(spark, broker.bootstrap, RUN_TOPICS)
    produce(spark, broker.bootstrap, records)
    home = folder / "run-home"
    home.mkdir()
    batches = home / "warehouse" / "bronze.db" / "kafka_messages"
    killed: dict[str, int] = {}

    mid_ingest = Running(home, broker.bootstrap, "--max-offsets-per-batch", "400")
    mid_ingest.wait_until(batches / "landing_batch_id=2")
    killed["ingest"] = len(mid_ingest.cycles())
    mid_ingest.kill()

    mid_build = Running(home, broker.bootstrap)
    # during the first creation of the history (tests/test_crash_recovery.py kills `cdc
    # build` mid-silver and at the current rows)
    mid_build.wait_until(home / "warehouse" / "gold.db" / "cdc_row_history")
    killed["build"] = len(mid_build.cycles())
    mid_build.kill()
    _forget_last_commit(home)
    replayed = run(home, "cdc", "ingest", "--bootstrap-servers", broker.bootstrap, "--topics", ",".join(RUN_TOPICS))

    running = Running(home, broker.bootstrap, timeout_s=OUTAGE_RUN_TIMEOUT_S)
    running.wait_for(lambda line: "lag 0 records" in line)
    broker.stop()
    stopped = time.monotonic()
    seen = len(running.cycles())
    outage = running.wait_for(lambda line: "ingest failed" in line, after=seen)
    outage_seconds = time.monotonic() - stopped
    broker.start()
    extra = _extra(62)
    produce(spark, broker.bootstrap, extra)
    seen = len(running.cycles())
    caught_up = running.wait_for(lambda line: records_of(line) > 0, after=seen)
    running.wait_for(lambda line: "lag 0 records" in line, after=seen)
    # as `kill PID` does (to the process group, SIGTERM would stop Spark's JVM at once)
    os.kill(running.process.pid, signal.SIGTERM)
    exit_code = running.process.wait(timeout=300)
    nodes = json.loads((dbt_target(home) / "manifest.json").read_text(encoding="utf-8"))["nodes"]
    seed_nodes = [uid for uid, node in nodes.items() if node["resource_type"] == "seed"
                  or (node["resource_type"] == "test"
                      and any(parent.startswith("seed.") for parent in node["depends_on"]["nodes"]))]
    dump = folder / "kafka.jsonl"
    dump_records(spark, broker.bootstrap, RUN_TOPICS, dump)
    return KafkaRun(home, killed, replayed, outage, outage_seconds, caught_up, exit_code, running.out.read_text(),
                    [r["unique_id"] for r in dbt_results(home)], seed_nodes, dump, len(records) + len(extra))
