"""`cdc ingest` and `cdc run` from a real Kafka broker (tests/kafka_support.py), each command
a process of its own as a user runs it.

Generated streams (Canal JSON with re-deliveries, Debezium JSON with tombstones, DTS Avro's
binary values) and the change log of a real MariaDB (the real-database harness's workload:
every column type at its limits, hostile text, key changes, DDL, TRUNCATE), rendered as
Canal JSON and as DTS Avro, are produced into topics of 3 partitions. One state folder
takes them in as a user would run it: `cdc run` killed with SIGKILL while its ingest writes
its second landing batch, then killed in its first build (at the history's creation);
`cdc ingest` after the checkpoint has forgotten that its last micro-batch finished (the
state a kill between the write and Spark's commit leaves); `cdc run` again, through a
broker outage, to SIGTERM.
The test session's lake lands the same records from a file, read back from Kafka with
Spark's batch reader (in this process: a lake of its own would start Spark cold), and
builds them: the gold must be the same, and bronze must hold each Kafka record once.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import synth
from kafka_support import SASL_PASSWORD, SASL_USER, Broker, create_topics, dump_records, produce
from process_support import (
    BIN,
    GOLD_QUERIES,
    PROJECT,
    dbt_results,
    dbt_target,
    home_env,
    home_rows_as_json,
    rows_as_json,
    run,
)
from realdb.fixtures import capture_mariadb_workload
from realdb.model import Capture
from realdb.render_alibaba import render_dts_avro
from realdb.render_canal import render_canal_json
from renderers import dts_avro

if TYPE_CHECKING:
    from cdclake.lake import Lake

pytestmark = pytest.mark.skipif(os.environ.get("CDC_SKIP_KAFKA") == "1", reason="CDC_SKIP_KAFKA=1")

TOPICS = ["demo.canal.kgen", "kgen.debezium", "kgen.dts-avro", "demo.canal.krdb", "krdb.dts-avro"]
# and one more, produced to while `cdc run` runs: the topics `cdc run` (and `cdc ingest` in
# its state folder, with the same checkpoint) reads
EXTRA_TOPIC = "demo.canal.krun"
RUN_TOPICS = [*TOPICS, EXTRA_TOPIC]


def _records(capture: Capture) -> list[synth.Record]:
    """The generated streams, and the MariaDB change log `capture` rendered as the vendors do."""
    from renderers import debezium_json

    canal = synth.render_canal_family(synth.generate("kgen_canal", n_changes=400, seed=41), "canal_json",
                                      topic=TOPICS[0])
    debezium = debezium_json.render(synth.generate("kgen_debezium", n_changes=300, seed=42), topic=TOPICS[1])
    avro = dts_avro.render(synth.generate("kgen_dts", n_changes=300, seed=43), topic=TOPICS[2])
    real = render_canal_json(capture, "krdb_canal", TOPICS[3]) + render_dts_avro(capture, "krdb_dts", TOPICS[4])
    # re-deliveries: a record produced twice sits at two offsets (the second one a duplicate)
    return synth.redeliver(canal, 0.05) + debezium + avro + real


def _forget_last_commit(home: Path) -> None:
    """The checkpoint forgets that its last micro-batch finished (as a kill between the
    landing and Spark's commit leaves it): the next run runs that micro-batch again."""
    commits = sorted((p for p in next((home / "checkpoints").iterdir()).joinpath("commits").iterdir()
                      if p.name.isdigit()), key=lambda p: int(p.name))
    commits[-1].unlink()
    commits[-1].with_name(f".{commits[-1].name}.crc").unlink(missing_ok=True)  # Hadoop's checksum of it


# a record as bronze holds it, without where and when it landed
BRONZE = ("select topic, kafka_partition, kafka_offset, kafka_ts, message_key, message_value, value_encoding, "
          "headers, count(*) as times from bronze.kafka_messages group by all")


# what two lakes fed the same records must hold alike
LAKE_QUERIES = {**GOLD_QUERIES, "bronze": BRONZE}


def _landed_from_file(lake: Lake, folder: Path, bootstrap: str, topics: list[str]) -> dict[str, list[str]]:
    """The session's lake, reset, with what `topics` hold landed from a file (`cdc land`'s
    landing) and built: its rows of LAKE_QUERIES."""
    dump = folder / "kafka.jsonl"
    dump_records(lake.spark, bootstrap, topics, dump)
    lake.reset()
    lake.land([str(dump)])
    # the reference's models only: the data tests run in the builds of the lake it is
    # compared with (`cdc run`'s; none may fail), and here they would only add time
    lake.build("--exclude", "resource_type:test")
    return rows_as_json(lake, LAKE_QUERIES)


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    node = Broker(tmp_path_factory.mktemp("kafka"))
    node.start()
    yield node
    node.stop()


@pytest.fixture(scope="module")
def produced(broker: Broker, lake, tmp_path_factory: pytest.TempPathFactory) -> int:
    """The records of TOPICS, produced: how many."""
    records = _records(capture_mariadb_workload(tmp_path_factory.mktemp("mariadb")))
    create_topics(lake.spark, broker.bootstrap, TOPICS)
    produce(lake.spark, broker.bootstrap, records)
    return len(records)


@pytest.fixture(scope="module")
def empty_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ingest-errors")


@pytest.mark.parametrize(("args", "error"), [
    (["--topics", "no.such.topic"], "no topic 'no.such.topic' on 127.0.0.1:"),
    (["--topic-pattern", r"nothing\..*"], r"no topic of 127.0.0.1:\d+ matches --topic-pattern"),
])
def test_a_missing_topic_is_a_one_line_error_and_writes_nothing(broker, empty_home, args, error):
    done = run(empty_home, "cdc", "ingest", "--bootstrap-servers", broker.bootstrap, *args, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert errors == done.stderr.splitlines()[-1:] and re.search(error, errors[0]), done.stderr
    assert "Traceback" not in done.stderr
    assert not (empty_home / "checkpoints").exists()
    assert not any((empty_home / "warehouse" / "bronze.db" / "kafka_messages").glob("landing_batch_id=*"))


def test_an_unreachable_broker_is_a_one_line_error(empty_home):
    from kafka_support import _free_port

    started = time.monotonic()
    done = run(empty_home, "cdc", "ingest", "--bootstrap-servers", f"127.0.0.1:{_free_port()}",
               "--topics", "a", "--timeout", "3", check=False)
    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert errors == done.stderr.splitlines()[-1:], done.stderr
    assert errors[0].startswith("error: cannot list the topics of 127.0.0.1:"), done.stderr
    assert time.monotonic() - started < 120


def _sasl_options(password: str) -> list[str]:
    jaas = (f'org.apache.kafka.common.security.plain.PlainLoginModule required username="{SASL_USER}" '
            f'password="{password}";')
    return ["--kafka-option", "security.protocol=SASL_PLAINTEXT", "--kafka-option", "sasl.mechanism=PLAIN",
            "--kafka-option", f"sasl.jaas.config={jaas}"]


def test_bad_credentials_are_a_one_line_error_and_good_ones_ingest(broker, produced, tmp_path):
    """The broker's SASL listener: a wrong password ends the run with one line, nothing
    written; the right one reaches Spark's Kafka source too. No password is ever printed."""
    home = tmp_path / "sasl-home"
    wrong = "not-the-password-8c2a"
    done = run(home, "cdc", "ingest", "--bootstrap-servers", broker.sasl_bootstrap, "--topics", TOPICS[0],
               "--timeout", "10", *_sasl_options(wrong), check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert errors == done.stderr.splitlines()[-1:], done.stderr
    assert "SaslAuthenticationException" in errors[0], errors
    assert wrong not in done.stdout + done.stderr
    assert not (home / "checkpoints").exists()
    assert not any((home / "warehouse" / "bronze.db" / "kafka_messages").glob("landing_batch_id=*"))

    right = SASL_PASSWORD
    done = run(home, "cdc", "ingest", "--bootstrap-servers", broker.sasl_bootstrap, "--topics", TOPICS[0],
               *_sasl_options(right))
    assert re.search(r"ingested \d+ records in landing batch 1 ", done.stdout), done.stdout
    assert "sasl.jaas.config=*****" in done.stdout + done.stderr
    assert right not in done.stdout + done.stderr


# --- cdc run ------------------------------------------------------------------------------

class Running:
    """A `cdc run` process in its own process group, its output in a file."""

    def __init__(self, home: Path, bootstrap: str, *extra: str) -> None:
        self.out = home / f"run-{time.monotonic_ns()}.log"
        with self.out.open("w") as log:
            self.process = subprocess.Popen(
                [str(BIN / "cdc"), "run", "--every", "2s", "--bootstrap-servers", bootstrap,
                 "--topics", ",".join(RUN_TOPICS), "--timeout", "5", *extra],
                cwd=PROJECT, env=home_env(home), start_new_session=True, stdout=log, stderr=subprocess.STDOUT)

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


def _records_of(line: str) -> int:
    match = re.match(r"cycle \d+: (\d+) records", line)
    return int(match[1]) if match else -1


def _extra(seed: int) -> list[synth.Record]:
    return synth.render_canal_family(synth.generate(f"krun{seed}", n_changes=150, seed=seed), "canal_json",
                                     topic=EXTRA_TOPIC)


@dataclass(frozen=True)
class Ran:
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
    gold: dict[str, list[str]]
    landed: dict[str, list[str]]
    produced: int


@pytest.fixture(scope="module")
def ran(broker: Broker, lake, produced: int, tmp_path_factory: pytest.TempPathFactory) -> Ran:
    """`cdc run` over the topics `produced` filled and one more: killed with SIGKILL in its
    first ingest and, started again, in its first build; then `cdc ingest` with the last
    micro-batch's commit forgotten; `cdc run` again, the broker stopped and started under
    it; then SIGTERM. The same records landed from a file in the session's lake."""
    home = tmp_path_factory.mktemp("run-home")
    create_topics(lake.spark, broker.bootstrap, [EXTRA_TOPIC])
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

    running = Running(home, broker.bootstrap)
    running.wait_for(lambda line: "lag 0 records" in line)
    broker.stop()
    stopped = time.monotonic()
    seen = len(running.cycles())
    outage = running.wait_for(lambda line: "ingest failed" in line, after=seen)
    outage_seconds = time.monotonic() - stopped
    broker.start()
    extra = _extra(62)
    produce(lake.spark, broker.bootstrap, extra)
    seen = len(running.cycles())
    caught_up = running.wait_for(lambda line: _records_of(line) > 0, after=seen)
    running.wait_for(lambda line: "lag 0 records" in line, after=seen)
    # as `kill PID` does (to the process group, SIGTERM would stop Spark's JVM at once)
    os.kill(running.process.pid, signal.SIGTERM)
    exit_code = running.process.wait(timeout=300)
    nodes = json.loads((dbt_target(home) / "manifest.json").read_text(encoding="utf-8"))["nodes"]
    seed_nodes = [uid for uid, node in nodes.items() if node["resource_type"] == "seed"
                  or (node["resource_type"] == "test"
                      and any(parent.startswith("seed.") for parent in node["depends_on"]["nodes"]))]

    landed = _landed_from_file(lake, tmp_path_factory.mktemp("run-landed"), broker.bootstrap, RUN_TOPICS)
    last_build = [r["unique_id"] for r in dbt_results(home)]
    return Ran(home, killed, replayed, outage, outage_seconds, caught_up, exit_code, running.out.read_text(),
               last_build, seed_nodes, home_rows_as_json(lake, home, LAKE_QUERIES), landed, produced + len(extra))


def test_cdc_run_killed_anywhere_gives_the_gold_of_landing_the_same_records(ran):
    # killed in its first cycle's ingest, then in the first cycle's build
    assert ran.killed == {"ingest": 0, "build": 0}
    assert ran.gold["current"], "no rows in gold"
    for name in GOLD_QUERIES:
        assert ran.gold[name] == ran.landed[name], name
    assert len(ran.gold["bronze"]) == ran.produced
    assert all('"times": 1' in row for row in ran.gold["bronze"])
    # values, keys, headers and timestamps too; Avro values as base64
    assert ran.gold["bronze"] == ran.landed["bronze"]
    assert any('"value_encoding": "base64"' in row for row in ran.gold["bronze"])
    rejecting = [row for row in ran.gold["status"] if '"rejects": 0' not in row]
    assert not rejecting, rejecting[:3]
    # every build of the run that was not killed passed its data tests: the first one
    # checked every landing batch (no build before it finished)
    failed = [line for line in ran.last_output.splitlines() if "build FAILED" in line]
    assert not failed, failed


def test_a_micro_batch_run_again_is_not_landed_twice(ran):
    # its records are in bronze once (the test above)
    assert "had landed before the last run stopped: not landed again" in ran.replayed.stdout


def test_a_cycle_with_the_project_of_the_last_build_leaves_the_seeds_out(ran):
    # the catch-up cycle: the seeds and their data tests, loaded and checked by the first
    # build, are left out (its gold is checked above); the models and their tests ran
    assert len(ran.seed_nodes) > 2 and not set(ran.seed_nodes) & set(ran.last_build), ran.last_build
    assert "model.cdc_lakehouse.cdc_row_history" in ran.last_build
    assert "test.cdc_lakehouse.assert_every_bronze_record_accounted_for" in ran.last_build


def test_cdc_run_reports_a_broker_outage_and_catches_up(ran):
    assert "ingest failed (" in ran.outage
    # within --timeout (5 s): Spark's source gives up as the admin client does, three
    # tries of 5 s; with Spark's defaults (a minute per try) it took three minutes
    assert ran.outage_seconds < 60, ran.outage_seconds
    assert _records_of(ran.caught_up) > 0


def test_cdc_run_stops_cleanly_after_the_cycle_on_sigterm(ran):
    assert ran.exit_code == 0, ran.last_output[-2000:]
    assert "SIGTERM: stopping after this cycle" in ran.last_output
    assert re.search(r"cdc run: stopped after cycle \d+", ran.last_output)
