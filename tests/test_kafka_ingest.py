"""`cdc ingest` and `cdc run` from a real Kafka broker (tests/kafka_support.py), each command
a process of its own as a user runs it, but two errors found before anything is read.

The errors of `cdc ingest` (a missing topic, an unreachable broker, a wrong SASL password:
in this process, on the session's lake) on a broker of this module; the right password and
the lag of a record stamped in an hour that New York's clock shows twice, in one process
in that time zone, on a state folder of its own. `cdc run`
killed and restarted in a state folder of its own, on a broker of its own
(tests/kafka_run.py, started when the session starts: tests/early.py).
The same records, read back from Kafka with Spark's batch reader into a file, are landed
and built in the session's lake with the user home's (tests/reference_lake.py): the gold of
their tables must be the same, and bronze must hold each Kafka record once.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from cdclake import cli, paths
from kafka_run import TOPICS, KafkaRun, generated_canal, records_of
from kafka_support import SASL_PASSWORD, SASL_USER, Broker, create_topics, produce, produce_at
from ports import free_port
from process_support import GOLD_QUERIES, home_rows_as_json, run
from reference_lake import LAKE_QUERIES

if TYPE_CHECKING:
    from cdclake.lake import Lake
    from early import EarlyJobs
    from reference_lake import ReferenceLake

pytestmark = pytest.mark.skipif(os.environ.get("CDC_SKIP_KAFKA") == "1", reason="CDC_SKIP_KAFKA=1")


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    node = Broker(tmp_path_factory.mktemp("kafka"))
    node.start()
    yield node
    node.stop()


@pytest.fixture(scope="module")
def produced(broker: Broker, lake) -> int:
    """The generated Canal JSON stream, produced into TOPICS[0] of the module's broker: how
    many records."""
    records = generated_canal()
    create_topics(lake.spark, broker.bootstrap, TOPICS[:1])
    produce(lake.spark, broker.bootstrap, records)
    return len(records)


def _written() -> tuple[list[Path], list[Path]]:
    """The subscriptions' checkpoints and bronze's landing batches of this process's lake."""
    home = paths.cdc_home()
    return (sorted((home / "checkpoints").glob("*")),
            sorted(paths.table_dir("bronze.kafka_messages").glob("landing_batch_id=*")))


def _ingest_error(capsys: pytest.CaptureFixture[str], *args: str, hidden: str = "") -> str:
    """The one line on stderr of `cdc ingest args` failing (exit 1), having written nothing
    and printed nothing of `hidden`. In this process, on the session's lake (cdclake.cli.main,
    what the `cdc` command runs): the SASL test's good credentials and the `cdc run` state
    folder run `cdc ingest` in processes of their own, and a cold JVM costs 15-30 CPU-s."""
    before = _written()
    assert cli.main(["ingest", *args]) == 1
    out, err = capsys.readouterr()
    assert "Traceback" not in err and err.count("\n") == 1 and err.startswith("error: "), out + err
    assert not hidden or hidden not in out + err
    assert _written() == before
    return err.rstrip("\n")


@pytest.mark.parametrize(("args", "error"), [
    (["--topics", "no.such.topic"], "no topic 'no.such.topic' on 127.0.0.1:"),
    (["--topic-pattern", r"nothing\..*"], r"no topic of 127.0.0.1:\d+ matches --topic-pattern"),
])
def test_a_missing_topic_is_a_one_line_error_and_writes_nothing(broker, lake, capsys, args, error):
    assert re.search(error, _ingest_error(capsys, "--bootstrap-servers", broker.bootstrap, *args))


def test_an_unreachable_broker_is_a_one_line_error(lake, capsys):
    started = time.monotonic()
    error = _ingest_error(capsys, "--bootstrap-servers", f"127.0.0.1:{free_port()}", "--topics", "a",
                          "--timeout", "3")
    assert error.startswith("error: cannot list the topics of 127.0.0.1:"), error
    assert time.monotonic() - started < 120


# The second 01:30:00.123 of New York's 2026-11-01 (EST, after the clocks went back from
# EDT), in milliseconds since the epoch: an instant whose local time names two
AMBIGUOUS_IN_NEW_YORK_MS = 1_793_514_600_123

# The process of NewYorkProcess: the lag of a subscription that has read nothing of topic
# argv[2] of broker argv[1] (on a lake with no other subscription: bronze.kafka_offsets
# holds its row alone), printed as one JSON line; then `cdc ingest` with argv[3:]
NEW_YORK_SCRIPT = """
import json, sys
from cdclake import cli
from cdclake.ingest import Subscription
from cdclake.lag import record_lag
from cdclake.landing import OFFSETS_TABLE, ensure_bronze
from cdclake.runtime import get_session
spark = get_session()
ensure_bronze(spark)
lag = record_lag(spark, Subscription(sys.argv[1], topics=(sys.argv[2],)))
rows = spark.sql(f"select kafka_partition, latest_offset, next_offset, unix_micros(oldest_waiting_ts), "
                 f"unix_micros(checked_at) from {OFFSETS_TABLE}").collect()
print("lag: " + json.dumps({"records": lag.records, "seconds": lag.seconds, "rows": [list(r) for r in rows]}))
sys.exit(cli.main(["ingest", *sys.argv[3:]]))
"""


def _sasl_options(password: str) -> list[str]:
    jaas = (f'org.apache.kafka.common.security.plain.PlainLoginModule required username="{SASL_USER}" '
            f'password="{password}";')
    return ["--kafka-option", "security.protocol=SASL_PLAINTEXT", "--kafka-option", "sasl.mechanism=PLAIN",
            "--kafka-option", f"sasl.jaas.config={jaas}"]


@dataclass(frozen=True)
class NewYorkProcess:
    started: float  # time.time() before the process started
    ended: float  # and after it ended
    lag: dict[str, Any]  # the lag it measured and the row of bronze.kafka_offsets it wrote
    output: str  # its stdout and stderr


@pytest.fixture(scope="module")
def new_york(broker: Broker, produced: int, lake: Lake, tmp_path_factory: pytest.TempPathFactory) -> NewYorkProcess:
    """One process of its own (a cold JVM costs 15-30 CPU-s), in New York's time zone, on a
    state folder of its own: the lag of a topic whose one record carries a Kafka timestamp
    in the hour New York's clock shows twice, then `cdc ingest` of TOPICS[0] through the
    SASL listener with the right password."""
    topic = "lag.ambiguous"
    # kept whatever its age: the broker deletes records older than its retention (7 days)
    create_topics(lake.spark, broker.bootstrap, [topic], partitions=1, configs={"retention.ms": "-1"})
    produce_at(lake.spark, broker.bootstrap, topic, AMBIGUOUS_IN_NEW_YORK_MS)
    started = time.time()
    done = run(tmp_path_factory.mktemp("new-york-home"), "python", "-c", NEW_YORK_SCRIPT, broker.bootstrap, topic,
               "--bootstrap-servers", broker.sasl_bootstrap, "--topics", TOPICS[0], *_sasl_options(SASL_PASSWORD),
               env={"TZ": "America/New_York"})
    output = done.stdout + done.stderr
    measured = [line.removeprefix("lag: ") for line in done.stdout.splitlines() if line.startswith("lag: {")]
    assert len(measured) == 1, output
    return NewYorkProcess(started, time.time(), json.loads(measured[0]), output)


def test_bad_credentials_are_a_one_line_error_and_good_ones_ingest(broker, new_york, capsys):
    """The broker's SASL listener: a wrong password ends the run with one line, nothing
    written (in this process, on the session's lake); the right one reaches Spark's Kafka
    source too (in a process of its own, with a state folder of its own: `new_york`). No
    password is ever printed."""
    wrong = "not-the-password-8c2a"
    error = _ingest_error(capsys, "--bootstrap-servers", broker.sasl_bootstrap, "--topics", TOPICS[0],
                          "--timeout", "10", *_sasl_options(wrong), hidden=wrong)
    assert "SaslAuthenticationException" in error, error

    assert re.search(r"ingested \d+ records in landing batch 1 ", new_york.output), new_york.output
    assert "sasl.jaas.config=*****" in new_york.output
    assert SASL_PASSWORD not in new_york.output


def test_lag_is_exact_where_local_time_is_ambiguous(new_york):
    """`record_lag` in a process in New York's time zone, for a subscription that has read
    nothing of a topic whose one record is stamped in the hour New York's clock shows
    twice: that record waits, and its timestamp reaches bronze.kafka_offsets to the
    microsecond (through Python's local datetimes, a table of one row came back an hour
    early)."""
    [(partition, latest, next_offset, oldest_us, checked_us)] = new_york.lag["rows"]
    assert (new_york.lag["records"], partition, latest, next_offset) == (1, 0, 1, 0)
    assert oldest_us == AMBIGUOUS_IN_NEW_YORK_MS * 1000
    assert new_york.started <= checked_us / 1e6 <= new_york.ended
    # the record's age when it was measured: at least what it was before the process
    # started, at most what it was when it ended
    oldest = AMBIGUOUS_IN_NEW_YORK_MS / 1000
    assert new_york.started - oldest <= new_york.lag["seconds"] <= new_york.ended - oldest


# --- cdc run ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Ran:
    run: KafkaRun
    gold: dict[str, list[str]]  # the run's state folder's rows of LAKE_QUERIES
    landed: dict[str, list[str]]  # the same of the reference lake, the run's records landed from a file


@pytest.fixture(scope="module")
def ran(early: EarlyJobs, lake: Lake, reference_lake: ReferenceLake) -> Ran:
    """The `cdc run` of tests/kafka_run.py (started when the session started), and the
    same records landed from a file and built in the reference lake (tests/reference_lake.py)."""
    done: KafkaRun = early.result("kafka run")
    return Ran(done, home_rows_as_json(lake, done.home, LAKE_QUERIES), reference_lake.rows_of("kafka run"))


def test_cdc_run_killed_anywhere_gives_the_gold_of_landing_the_same_records(ran):
    # killed in its first cycle's ingest, then in the first cycle's build
    assert ran.run.killed == {"ingest": 0, "build": 0}
    assert ran.gold["current"], "no rows in gold"
    for name in GOLD_QUERIES:
        assert ran.gold[name] == ran.landed[name], name
    assert len(ran.gold["bronze"]) == ran.run.produced
    assert all('"times": 1' in row for row in ran.gold["bronze"])
    # values, keys, headers and timestamps too; Avro values as base64
    assert ran.gold["bronze"] == ran.landed["bronze"]
    assert any('"value_encoding": "base64"' in row for row in ran.gold["bronze"])
    rejecting = [row for row in ran.gold["status"] if '"rejects": 0' not in row]
    assert not rejecting, rejecting[:3]
    # every build of the run that was not killed passed its data tests: the first one
    # checked every landing batch (no build before it finished)
    failed = [line for line in ran.run.last_output.splitlines() if "build FAILED" in line]
    assert not failed, failed


def test_a_micro_batch_run_again_is_not_landed_twice(ran):
    # its records are in bronze once (the test above)
    assert "had landed before the last run stopped: not landed again" in ran.run.replayed.stdout


def test_a_cycle_with_the_project_of_the_last_build_leaves_the_seeds_out(ran):
    # the catch-up cycle: the seeds and their data tests, loaded and checked by the first
    # build, are left out (its gold is checked above); the models and their tests ran
    assert len(ran.run.seed_nodes) > 2 and not set(ran.run.seed_nodes) & set(ran.run.last_build), ran.run.last_build
    assert "model.cdc_lakehouse.cdc_row_history" in ran.run.last_build
    assert "test.cdc_lakehouse.assert_every_bronze_record_accounted_for" in ran.run.last_build


def test_cdc_run_reports_a_broker_outage_and_catches_up(ran):
    assert "ingest failed (" in ran.run.outage
    # within --timeout (5 s): Spark's source gives up as the admin client does, three
    # tries of 5 s; with Spark's defaults (a minute per try) it took three minutes
    assert ran.run.outage_seconds < 60, ran.run.outage_seconds
    assert records_of(ran.run.caught_up) > 0


def test_cdc_run_stops_cleanly_after_the_cycle_on_sigterm(ran):
    assert ran.run.exit_code == 0, ran.run.last_output[-2000:]
    assert "SIGTERM: stopping after this cycle" in ran.run.last_output
    assert re.search(r"cdc run: stopped after cycle \d+", ran.run.last_output)
