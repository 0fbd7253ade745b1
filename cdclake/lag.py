"""Consumer lag of a `cdc ingest` subscription: per topic and partition, the latest offset
Kafka holds, the next offset the subscription's checkpoint will read, and the oldest
record waiting between them.

`record_lag` asks the brokers (a Kafka admin client) for the latest offsets, reads the
checkpoint's last finished micro-batch for the next offsets, reads the first waiting record
of each lagging partition (one small Spark batch read) for its timestamp, and replaces the
subscription's rows of `bronze.kafka_offsets`. The view `gold.cdc_kafka_lag` turns them
into lag in records and seconds as of the moment it is queried; `cdc status` prints it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cdclake.ingest import IngestError, Subscription, _admin, _kafka_error, check_topics
from cdclake.landing import OFFSETS_TABLE

if TYPE_CHECKING:
    import datetime as dt

    from pyspark.sql import SparkSession

@dataclass(frozen=True)
class PartitionLag:
    topic: str
    partition: int
    latest_offset: int  # the offset Kafka gives the next record produced
    next_offset: int  # the next offset the subscription reads
    oldest_waiting_ts: dt.datetime | None  # Kafka's timestamp of the record at next_offset

    @property
    def records(self) -> int:
        return max(0, self.latest_offset - self.next_offset)


@dataclass(frozen=True)
class KafkaLag:
    partitions: list[PartitionLag]
    seconds: float  # age of the oldest waiting record (0: nothing waits)

    @property
    def records(self) -> int:
        return sum(p.records for p in self.partitions)


def checkpoint_offsets(checkpoint: Path) -> dict[tuple[str, int], int]:
    """The next offsets of the checkpoint's last finished micro-batch (Spark's offset log:
    a version line, the batch's metadata, then one line per source: the Kafka source's
    JSON of offsets per topic and partition)."""
    commits = [int(p.name) for p in (checkpoint / "commits").glob("*") if p.name.isdigit()]
    if not commits:
        return {}
    lines = (checkpoint / "offsets" / str(max(commits))).read_text(encoding="utf-8").splitlines()
    offsets = json.loads(lines[2])
    return {(topic, int(p)): int(o) for topic, parts in offsets.items() for p, o in parts.items()}


def partition_offsets(spark: SparkSession, subscription: Subscription, topics: list[str],
                      which: str = "latest") -> dict[tuple[str, int], int]:
    """The latest (or earliest) offset of every partition of `topics`, asked of the brokers."""
    from py4j.protocol import Py4JJavaError

    jvm = spark.sparkContext._jvm
    assert jvm is not None
    admin_pkg = jvm.org.apache.kafka.clients.admin
    try:
        with _admin(spark, subscription) as admin:
            names = jvm.java.util.ArrayList()
            for topic in topics:
                names.add(topic)
            described = admin.describeTopics(names).allTopicNames().get()
            wanted = jvm.java.util.HashMap()
            for topic in topics:
                for info in described.get(topic).partitions():
                    wanted.put(jvm.org.apache.kafka.common.TopicPartition(topic, info.partition()),
                               getattr(admin_pkg.OffsetSpec, which)())
            found = admin.listOffsets(wanted).all().get()
            return {(tp.topic(), int(tp.partition())): int(found.get(tp).offset()) for tp in found.keySet()}
    except Py4JJavaError as exc:
        raise IngestError(f"cannot read the offsets of {subscription.bootstrap_servers}: {_kafka_error(exc)}") \
            from None


def _oldest_waiting(spark: SparkSession, subscription: Subscription,
                    waiting: dict[tuple[str, int], int]) -> dict[tuple[str, int], dt.datetime]:
    """Kafka's timestamp of the record at each of `waiting`'s offsets."""
    if not waiting:
        return {}
    start: dict[str, dict[str, int]] = {}
    end: dict[str, dict[str, int]] = {}
    for (topic, partition), offset in waiting.items():
        start.setdefault(topic, {})[str(partition)] = offset
        end.setdefault(topic, {})[str(partition)] = offset + 1
    reader = spark.read.format("kafka")
    for key, value in subscription.source_options().items():
        if key.startswith("kafka."):
            reader = reader.option(key, value)
    rows = (reader.option("assign", json.dumps({t: [int(p) for p in ps] for t, ps in start.items()}))
            .option("startingOffsets", json.dumps(start)).option("endingOffsets", json.dumps(end))
            .option("failOnDataLoss", "false").load()
            .groupBy("topic", "partition").agg({"timestamp": "min"}).collect())
    return {(r[0], int(r[1])): r[2] for r in rows}


def record_lag(spark: SparkSession, subscription: Subscription) -> KafkaLag:
    """Measure the subscription's lag and keep it in bronze.kafka_offsets."""
    import datetime as dt

    topics = check_topics(spark, subscription)
    latest = partition_offsets(spark, subscription, topics)
    read = checkpoint_offsets(subscription.checkpoint())
    # a partition the checkpoint has not read yet: all it holds waits (Spark reads a
    # partition that appears later from its earliest offset)
    unread = [t for t in topics if any(tp not in read for tp in latest if tp[0] == t)]
    earliest = partition_offsets(spark, subscription, unread, "earliest") if unread else {}
    next_offsets = {tp: read[tp] if tp in read else earliest[tp] for tp in latest}
    waiting = {tp: offset for tp, offset in next_offsets.items() if latest[tp] > offset}
    oldest = _oldest_waiting(spark, subscription, waiting)
    partitions = [PartitionLag(topic, partition, latest[(topic, partition)], next_offsets[(topic, partition)],
                               oldest.get((topic, partition))) for topic, partition in sorted(latest)]
    now = dt.datetime.now()
    seconds = max([(now - p.oldest_waiting_ts).total_seconds() for p in partitions
                   if p.records and p.oldest_waiting_ts is not None] or [0.0])
    _keep(spark, subscription, partitions)
    return KafkaLag(partitions, max(0.0, seconds))


def _keep(spark: SparkSession, subscription: Subscription, partitions: list[PartitionLag]) -> None:
    """Replace the subscription's rows of bronze.kafka_offsets (one small table, rewritten)."""
    from pyspark.sql import functions as F

    kept = spark.table(OFFSETS_TABLE).where(F.col("subscription") != subscription.name)
    fresh = spark.createDataFrame(
        [(subscription.name, p.topic, p.partition, p.latest_offset, p.next_offset, p.oldest_waiting_ts)
         for p in partitions],
        "subscription string, topic string, kafka_partition int, latest_offset bigint, next_offset bigint, "
        "oldest_waiting_ts timestamp",
    ).withColumn("checked_at", F.current_timestamp())
    rows = kept.unionByName(fresh).collect()  # read before the overwrite
    spark.createDataFrame(rows, spark.table(OFFSETS_TABLE).schema).write.insertInto(OFFSETS_TABLE, overwrite=True)
