"""Benchmark: `cdc ingest` and `cdc run` against a real Kafka broker on this machine.

- **Ingest throughput**: --events Canal JSON events (bench_canal.write_stream) produced into
  a topic of 4 partitions, then one `cdc ingest` of all of them on an empty state folder, a
  fresh process: records per second of the whole process and of its ingest alone (what
  `cdc ingest` reports).
- **Latency**: `cdc run --every --every` on an empty state folder while a producer sends
  --rate Canal events a second for --minutes (keys of 10k rows, inserts then updates; each
  record's Kafka timestamp is its produce time). A record is visible in
  gold.cdc_current_rows when the cycle that ingested its landing batch printed its line
  (after the build committed): latency = that moment minus the record's timestamp; median
  and 99th percentile over every record.

The broker is the tests' (tests/kafka_support.py, jars from `make test-kafka`). Writes the
section "## Kafka: ingest and cdc run" of BENCHMARKS.md. On an idle machine:

    .venv/bin/python bench/bench_kafka.py
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_canal import BIN, COLUMNS, PROJECT, cdc_env, run_cdc, write_stream

sys.path.insert(0, str(PROJECT / "tests"))
from kafka_support import Broker

SECTION = "## Kafka: ingest and cdc run"
THROUGHPUT_TOPIC, LATENCY_TOPIC = "bench.canal.orders", "demo.canal.latency"

# the producer of the latency run: a process of its own with a JVM (Spark's, for its
# kafka-clients jar), sending `rate` Canal events a second in ticks of 100 ms
PRODUCER = """
import json, random, sys, time
from pyspark.sql import SparkSession
from cdclake.jars import class_path

bootstrap, topic, rate, seconds, columns = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
spark = (SparkSession.builder.master("local[1]").config("spark.driver.extraClassPath", class_path())
         .config("spark.ui.enabled", "false").getOrCreate())
jvm = spark.sparkContext._jvm
props = jvm.java.util.Properties()
for k, v in {"bootstrap.servers": bootstrap, "linger.ms": "5", "acks": "all",
             "key.serializer": "org.apache.kafka.common.serialization.StringSerializer",
             "value.serializer": "org.apache.kafka.common.serialization.StringSerializer"}.items():
    props.setProperty(k, v)
producer = jvm.org.apache.kafka.clients.producer.KafkaProducer(props)
rng, live, sent, keys = random.Random(3), set(), 0, 10_000
start = time.monotonic()
while time.monotonic() - start < seconds:
    due = int((time.monotonic() - start) * rate) + 1
    while sent < due:
        key = rng.randrange(keys)
        op = "UPDATE" if key in live else "INSERT"
        live.add(key)
        row = {"id": str(key), "customer": f"c-{sent}", "amount": f"{sent}.0000", "status": "new",
               "updated": "2024-05-01 12:00:00"}
        now = int(time.time() * 1000)
        message = {"data": [row], "database": "bench", "table": "latency", "pkNames": ["id"], "isDdl": False,
                   "type": op, "es": now, "ts": now, "id": sent, "sql": "", "mysqlType": json.loads(columns),
                   "old": [{"customer": "?"}] if op == "UPDATE" else None}
        producer.send(jvm.org.apache.kafka.clients.producer.ProducerRecord(topic, str(key), json.dumps(message)))
        sent += 1
    producer.flush()
    time.sleep(0.1)
producer.close()
print(sent)
"""


def produce_file(bootstrap: str, path: Path, topic: str) -> None:
    """Produce the records of a bench_canal stream file (their partitions, in offset order)."""
    code = f"""
from pyspark.sql import SparkSession
from cdclake.jars import class_path
spark = (SparkSession.builder.master("local[2]").config("spark.driver.extraClassPath", class_path())
         .config("spark.driver.memory", "2g").config("spark.ui.enabled", "false").getOrCreate())
lines = spark.read.json({str(path)!r})
(lines.selectExpr("{topic!r} as topic", "cast(partition as int) as partition", "offset", "value")
      .repartition(4, "partition").sortWithinPartitions("partition", "offset")
      .drop("offset").write.format("kafka").option("kafka.bootstrap.servers", {bootstrap!r}).save())
"""
    _python(code)


def _python(code: str, *args: str) -> str:
    """Run `code` in a Python process of this environment; its stdout (its stderr in the
    error when it fails)."""
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=PROJECT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"python exited {done.returncode}: {done.stderr[-3000:]}")
    return done.stdout


def create_topic(bootstrap: str, topic: str, partitions: int) -> None:
    code = f"""
from pyspark.sql import SparkSession
from cdclake.jars import class_path
import sys
sys.path.insert(0, "tests")
from kafka_support import create_topics
spark = (SparkSession.builder.master("local[1]").config("spark.driver.extraClassPath", class_path())
         .config("spark.ui.enabled", "false").getOrCreate())
create_topics(spark, {bootstrap!r}, [{topic!r}], {partitions})
"""
    _python(code)


def throughput(broker: Broker, workdir: Path, events: int) -> dict[str, float]:
    stream = workdir / "throughput.jsonl"
    write_stream(stream, events, max(1, events // 10), first_key=1, start_seq=0, seed=1)
    create_topic(broker.bootstrap, THROUGHPUT_TOPIC, 4)
    produce_file(broker.bootstrap, stream, THROUGHPUT_TOPIC)
    measured = run_cdc(cdc_env(workdir / "throughput-home"), "ingest", "--bootstrap-servers", broker.bootstrap,
                       "--topics", THROUGHPUT_TOPIC)
    found = re.search(r"ingested (\d+) records in .* in ([\d.]+) s", measured.stdout)
    assert found and int(found[1]) == events, measured.stdout
    return {"events": events, "process_s": measured.seconds, "ingest_s": float(found[2]),
            "process_rate": events / measured.seconds, "ingest_rate": events / float(found[2]),
            "peak_mib": measured.peak_mib}


def latency(broker: Broker, workdir: Path, rate: int, minutes: float, every: str) -> dict[str, float]:
    create_topic(broker.bootstrap, LATENCY_TOPIC, 3)
    home = workdir / "latency-home"
    env = cdc_env(home)
    runner = subprocess.Popen([str(BIN / "cdc"), "run", "--every", every, "--bootstrap-servers", broker.bootstrap,
                               "--topics", LATENCY_TOPIC], cwd=PROJECT, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    visible: dict[int, float] = {}  # landing batch -> when its cycle's line came
    lines: list[str] = []

    def read() -> None:
        assert runner.stdout is not None
        for line in runner.stdout:
            lines.append(line.rstrip("\n"))
            found = re.search(r"landing batch(?:es)? (\d+)(?:-(\d+))?\)", line)
            if found:
                for batch in range(int(found[1]), int(found[2] or found[1]) + 1):
                    visible[batch] = time.time()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    while not any(line.startswith("cycle ") for line in lines):  # warm: the first (empty) cycle
        time.sleep(0.5)
    produced = _python(PRODUCER, broker.bootstrap, LATENCY_TOPIC, str(rate), str(minutes * 60), json.dumps(COLUMNS))
    sent = int(produced.strip().splitlines()[-1])
    # caught up: a cycle that ended after the producer stopped left nothing waiting
    cycles_before = [line for line in lines if line.startswith("cycle ")]
    deadline = time.monotonic() + 1800
    while time.monotonic() < deadline and not any(
            "lag 0 records" in line for line in [x for x in lines if x.startswith("cycle ")][len(cycles_before):]):
        time.sleep(1)
    runner.send_signal(signal.SIGTERM)
    runner.wait(timeout=600)
    reader.join(timeout=10)
    os.environ.update({k: env[k] for k in ("CDC_HOME", "DBT_TARGET_PATH", "DBT_LOG_PATH")})
    from cdclake.lake import Lake

    rows = Lake().rows("select landing_batch_id as b, unix_millis(kafka_ts) as ts from bronze.kafka_messages")
    latencies = sorted(visible[r["b"]] - r["ts"] / 1000 for r in rows if r["b"] in visible)
    assert len(latencies) == sent == len(rows), (len(latencies), sent, len(rows))
    builds = [float(m[1]) for line in lines if (m := re.search(r"build ([\d.]+) s", line))]
    return {"rate": rate, "minutes": minutes, "every": every, "sent": sent,
            "p50_s": statistics.median(latencies), "p99_s": latencies[int(0.99 * (len(latencies) - 1))],
            "max_s": latencies[-1], "cycles": sum(line.startswith("cycle ") for line in lines),
            "median_build_s": statistics.median(builds) if builds else 0.0}


def section(tp: dict[str, float], lat: dict[str, float]) -> list[str]:
    today = dt.date.today().isoformat()
    return [
        SECTION, "",
        f"`bench/bench_kafka.py`, {today}, 2 cores: a single-node Kafka broker (KRaft, the tests' own) on "
        "127.0.0.1, each `cdc` command a fresh process.", "",
        "| measure | target | ours | pass |", "|---|---|---|---|",
        f"| `cdc ingest` of {int(tp['events']):,} records (4 partitions): the ingest alone (once the "
        f"Spark session is up: topic check, read, write, commit) | ≥ 50,000 / s | {tp['ingest_rate']:,.0f} / s "
        f"({tp['ingest_s']:.1f} s) | {'pass' if tp['ingest_rate'] >= 50_000 else 'FAIL'} |",
        f"| the same, whole process (JVM and Spark start included) | | {tp['process_rate']:,.0f} / s "
        f"({tp['process_s']:.1f} s, peak {tp['peak_mib']:,.0f} MiB) | |",
        f"| `cdc run --every {lat['every']}`, a producer asked for {int(lat['rate']):,} events / s for "
        f"{lat['minutes']:g} min: "
        f"produce to visible in gold, p99 | < 30 s | {lat['p99_s']:.1f} s | "
        f"{'pass' if lat['p99_s'] < 30 else 'FAIL'} |",
        f"| the same, median | | {lat['p50_s']:.1f} s | |",
        f"| the same, slowest record | | {lat['max_s']:.1f} s | |",
        f"| the same: cycles, median build | | {int(lat['cycles'])} cycles, {lat['median_build_s']:.1f} s | |",
        f"| the same: events the producer sent (it shares the 2 cores) | {int(lat['rate']) * lat['minutes'] * 60:,.0f} "
        f"| {int(lat['sent']):,} ({lat['sent'] / (lat['minutes'] * 60):,.0f} / s) | |",
        "",
        "A record is visible once the cycle after its arrival has built: its latency is the rest of the "
        "running cycle plus the next one. A cycle builds what arrived during the one before, so at a "
        "steady rate a cycle settles where its build takes as long as the records it builds take to "
        "arrive; the median build above is that point.",
        "",
    ]


def write_section(out: Path, lines: list[str]) -> None:
    text = out.read_text(encoding="utf-8") if out.exists() else "# Benchmarks\n"
    text = re.sub(rf"\n{re.escape(SECTION)}\n.*?(?=\n## |\Z)", "", text, flags=re.S).rstrip("\n")
    out.write_text(text + "\n\n" + "\n".join(lines), encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=1_000_000, help="records of the throughput run")
    parser.add_argument("--rate", type=int, default=1_000, help="events a second of the latency run")
    parser.add_argument("--minutes", type=float, default=10.0, help="how long the latency producer runs")
    parser.add_argument("--every", default="10s", help="`cdc run --every` of the latency run")
    parser.add_argument("--out", type=Path, default=PROJECT / "BENCHMARKS.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cdc-bench-kafka-") as tmp:
        workdir = Path(tmp)
        broker = Broker(workdir / "broker")
        broker.start()
        try:
            tp = throughput(broker, workdir, args.events)
            print(f"ingest: {tp}", flush=True)
            lat = latency(broker, workdir, args.rate, args.minutes, args.every)
            print(f"latency: {lat}", flush=True)
        finally:
            broker.stop()
    lines = section(tp, lat)
    write_section(args.out, lines)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
