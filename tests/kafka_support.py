"""A single-node Apache Kafka broker (KRaft: broker and controller in one JVM) for the tests
of `cdc ingest`, on 127.0.0.1, from the jars `make test-kafka` fetches with Maven
(tests/kafka/pom.xml); and what the tests do with it through a Spark session: create
topics, produce records, read them back.

The broker lives in a folder of its own (config, data, server.log); `stop` and `start`
again keep its data, as a broker restart does.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ports import free_port

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from synth import Record

PROJECT = Path(__file__).resolve().parents[1]
BROKER_JARS = Path(os.environ.get("CDC_KAFKA_BROKER_JARS")
                   or Path(sys.prefix) / "share" / "cdc-lakehouse" / "kafka-broker")
LOG_CONFIG = PROJECT / "tests" / "kafka" / "log4j2.properties"
STARTED = "Kafka Server started"
# the one user of the broker's SASL PLAIN listener
SASL_USER, SASL_PASSWORD = "cdc", "cdc-secret-5d1f"


class Broker:
    """One KRaft node: `bootstrap` is its address once `start` returns."""

    def __init__(self, folder: Path) -> None:
        if not any(BROKER_JARS.glob("kafka_2.13-*.jar")):
            raise RuntimeError(f"no Kafka broker jars in {BROKER_JARS}: run `make test-kafka`")
        self.folder = folder
        self.port, self.controller_port, self.sasl_port = free_port(), free_port(), free_port()
        self.bootstrap = f"127.0.0.1:{self.port}"
        # a second listener that asks for SASL PLAIN credentials (SASL_USER, SASL_PASSWORD)
        self.sasl_bootstrap = f"127.0.0.1:{self.sasl_port}"
        self.process: subprocess.Popen[bytes] | None = None
        folder.mkdir(parents=True, exist_ok=True)
        self.config = folder / "server.properties"
        self.config.write_text("\n".join([
            "process.roles=broker,controller",
            "node.id=1",
            f"controller.quorum.voters=1@127.0.0.1:{self.controller_port}",
            f"listeners=PLAINTEXT://127.0.0.1:{self.port},CONTROLLER://127.0.0.1:{self.controller_port},"
            f"SASL://127.0.0.1:{self.sasl_port}",
            f"advertised.listeners=PLAINTEXT://127.0.0.1:{self.port},SASL://127.0.0.1:{self.sasl_port}",
            "controller.listener.names=CONTROLLER",
            "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL:SASL_PLAINTEXT",
            "listener.name.sasl.sasl.enabled.mechanisms=PLAIN",
            "listener.name.sasl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule "
            f'required username="{SASL_USER}" password="{SASL_PASSWORD}" user_{SASL_USER}="{SASL_PASSWORD}";',
            "inter.broker.listener.name=PLAINTEXT",
            f"log.dirs={folder / 'data'}",
            "num.partitions=3",
            "auto.create.topics.enable=false",
            "offsets.topic.replication.factor=1",
            "offsets.topic.num.partitions=1",
            "transaction.state.log.replication.factor=1",
            "transaction.state.log.min.isr=1",
            "share.coordinator.state.topic.replication.factor=1",
            "share.coordinator.state.topic.min.isr=1",
            "group.initial.rebalance.delay.ms=0",
            "",
        ]))
        # one random id in 64 starts with '-': only '--name=value' keeps the tool from reading it as an option
        self._java("kafka.tools.StorageTool", "format", f"--cluster-id={self._cluster_id()}",
                   f"--config={self.config}")

    @staticmethod
    def _cluster_id() -> str:
        return base64.urlsafe_b64encode(secrets.token_bytes(16)).decode().rstrip("=")

    def _command(self, main: str, *args: str) -> list[str]:
        # C1 alone, as the tests' child processes (process_support.CHILD_JAVA_OPTIONS): the
        # broker of the Kafka run (two starts) took 7.8 CPU-s instead of 12.2
        return ["java", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                f"-Dlog4j2.configurationFile={LOG_CONFIG}", "-cp", f"{BROKER_JARS}/*", main, *args]

    def _java(self, main: str, *args: str) -> None:
        done = subprocess.run(self._command(main, *args), capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{main} {' '.join(args)} exited {done.returncode}: {done.stderr[-2000:]}")

    @property
    def log(self) -> Path:
        return self.folder / "server.log"

    def start(self, timeout: float = 90) -> None:
        """Start the broker and wait until it serves requests."""
        start = self.log.stat().st_size if self.log.exists() else 0
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(self._command("kafka.Kafka", str(self.config)),
                                            stdout=log, stderr=subprocess.STDOUT, process_group=0)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the Kafka broker exited {self.process.returncode}: see {self.log}")
            with self.log.open("rb") as handle:
                handle.seek(start)
                if STARTED.encode() in handle.read():
                    return
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"the Kafka broker did not start in {timeout} s: see {self.log}")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def _client_properties(spark: SparkSession, bootstrap: str, **settings: str) -> Any:
    """The java.util.Properties of a Kafka client in the session's JVM: the broker's address
    and `settings`."""
    props = spark.sparkContext._jvm.java.util.Properties()
    props.setProperty("bootstrap.servers", bootstrap)
    for key, value in settings.items():
        props.setProperty(key, value)
    return props


def create_topics(spark: SparkSession, bootstrap: str, topics: list[str], partitions: int = 3,
                  configs: dict[str, str] | None = None) -> None:
    """Create `topics` (each with `partitions` partitions and the topic `configs`) with
    Kafka's admin client in the session's JVM."""
    jvm = spark.sparkContext._jvm
    admin = jvm.org.apache.kafka.clients.admin.Admin.create(_client_properties(spark, bootstrap))
    try:
        new = jvm.java.util.ArrayList()
        settings = jvm.java.util.HashMap()
        for key, value in (configs or {}).items():
            settings.put(key, value)
        for topic in topics:
            new.add(jvm.org.apache.kafka.clients.admin.NewTopic(topic, partitions, 1).configs(settings))
        admin.createTopics(new).all().get()
    finally:
        admin.close()


# The producer's batching (Spark passes `kafka.`-prefixed options to it): records wait for
# the writer task's flush at its end, in batches of up to 512 kB per partition (the broker
# takes up to 1 MB), so that a produce of a few hundred kB reaches the broker in one request
# (the broker appends its partitions one after the other, so a reader could still see part
# of it, within microseconds). With the client's defaults (16 kB batches sent within 5 ms),
# `cdc run` in tests/kafka_run.py caught up after the broker outage in two cycles, 80 then
# 65 of the 145 records produced, each with a build of 44 s; batched, in one (a test that
# waited for it would pass either way: this saves a build, it proves nothing).
PRODUCER_BATCHING = {"kafka.linger.ms": "30000", "kafka.batch.size": str(512 << 10)}


def produce(spark: SparkSession, bootstrap: str, records: list[Record]) -> None:
    """Produce `records` with Spark's Kafka sink, each to its topic and partition, in
    offset order within a partition (one writer task: one producer, in order), batched
    (PRODUCER_BATCHING). The broker gives them offsets from 0 in that order, and its own
    timestamps."""
    rows = [(r.topic, r.partition, None if r.key is None else r.key.encode(),
             None if r.value is None else (base64.b64decode(r.value) if r.binary else r.value.encode()),
             [("source", f"{r.topic}/{r.partition}/{r.offset}".encode())])
            for r in sorted(records, key=lambda r: (r.topic, r.partition, r.offset))]
    frame = spark.createDataFrame(
        rows, "topic string, partition int, key binary, value binary, "
              "headers array<struct<key: string, value: binary>>").coalesce(1)
    (frame.write.format("kafka").option("kafka.bootstrap.servers", bootstrap)
     .option("kafka.enable.idempotence", "true").option("kafka.acks", "all").options(**PRODUCER_BATCHING).save())


def produce_at(spark: SparkSession, bootstrap: str, topic: str, timestamp_ms: int) -> None:
    """One record in partition 0 of `topic`, with `timestamp_ms` as its Kafka timestamp
    (`produce` leaves the timestamp to the broker): a producer in the session's JVM."""
    jvm = spark.sparkContext._jvm
    serializer = "org.apache.kafka.common.serialization.StringSerializer"
    producer = jvm.org.apache.kafka.clients.producer.KafkaProducer(_client_properties(
        spark, bootstrap, **{"key.serializer": serializer, "value.serializer": serializer}))
    try:
        record = jvm.org.apache.kafka.clients.producer.ProducerRecord(
            topic, jvm.java.lang.Integer(0), jvm.java.lang.Long(timestamp_ms), None, '{"waiting": true}')
        producer.send(record).get()
    finally:
        producer.close()


def dump_records(spark: SparkSession, bootstrap: str, topics: list[str], path: Path) -> int:
    """Everything `topics` hold, read with Spark's batch Kafka reader (not `cdc ingest`), as
    the JSON lines `cdc land` takes (`value`, or `value_base64` for a value that is not
    UTF-8); the number of records."""
    frame = (spark.read.format("kafka").option("kafka.bootstrap.servers", bootstrap)
             .option("subscribe", ",".join(topics)).option("includeHeaders", "true")
             .option("startingOffsets", "earliest").option("endingOffsets", "latest").load()
             .selectExpr("*", "unix_millis(timestamp) as ts_ms"))
    lines = []
    for r in frame.orderBy("topic", "partition", "offset").collect():
        record: dict[str, Any] = {"topic": r["topic"], "partition": r["partition"], "offset": r["offset"],
                                  "timestamp": r["ts_ms"],
                                  "key": None if r["key"] is None else bytes(r["key"]).decode()}
        value = None if r["value"] is None else bytes(r["value"])
        try:
            record["value"] = None if value is None else value.decode("utf-8")
        except UnicodeDecodeError:
            record["value_base64"] = base64.b64encode(value).decode("ascii")
        record["headers"] = [{"key": h["key"], "value": bytes(h["value"]).decode()} for h in r["headers"] or []]
        lines.append(json.dumps(record, ensure_ascii=False))
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return len(lines)
