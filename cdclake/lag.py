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
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cdclake.ingest import IngestError, Subscription, _admin, _kafka_error, check_topics
from cdclake.landing import OFFSETS_TABLE

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

@dataclass(frozen=True)
class PartitionLag:
    topic: str
    partition: int
    latest_offset: int  # the offset Kafka gives the next record produced
    next_offset: int  # the next offset the subscription reads
    # Kafka's timestamp of the record at next_offset, in microseconds since the epoch: an
    # instant as Spark keeps it (a Python datetime from Spark is local time, which a
    # daylight-saving change makes ambiguous)
    oldest_waiting_us: int | None

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
                    waiting: dict[tuple[str, int], int]) -> dict[tuple[str, int], int]:
    """Kafka's timestamp of the record at each of `waiting`'s offsets, in microseconds
    since the epoch."""
    from pyspark.sql import functions as F

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
            .groupBy("topic", "partition").agg(F.unix_micros(F.min("timestamp"))).collect())
    return {(r[0], int(r[1])): int(r[2]) for r in rows}


def record_lag(spark: SparkSession, subscription: Subscription) -> KafkaLag:
    """Measure the subscription's lag and keep it in bronze.kafka_offsets."""
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
    now_us = time.time_ns() // 1000
    seconds = max([(now_us - p.oldest_waiting_us) / 1e6 for p in partitions
                   if p.records and p.oldest_waiting_us is not None] or [0.0])
    _keep(spark, subscription, partitions)
    return KafkaLag(partitions, max(0.0, seconds))


def _keep(spark: SparkSession, subscription: Subscription, partitions: list[PartitionLag]) -> None:
    """Replace the subscription's rows of bronze.kafka_offsets (one small table, rewritten).
    The rows kept are read before the overwrite, their times as microseconds since the
    epoch, and made timestamps again by Spark: exact in any time zone of this process."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType, StructField, StructType

    times = ("oldest_waiting_ts", "checked_at")
    table = spark.table(OFFSETS_TABLE)
    kept = (table.where(F.col("subscription") != subscription.name)
            .select(*[F.unix_micros(c).alias(c) if c in times else c for c in table.columns]).collect())
    fresh = [(subscription.name, p.topic, p.partition, p.latest_offset, p.next_offset, p.oldest_waiting_us, None)
             for p in partitions]
    schema = StructType([StructField(f.name, LongType()) if f.name in times else f for f in table.schema.fields])
    rows = spark.createDataFrame([tuple(r) for r in kept] + fresh, schema)
    now = F.current_timestamp()
    rows.select(*[F.timestamp_micros(c).alias(c) if c == "oldest_waiting_ts"
                  else F.coalesce(F.timestamp_micros(c), now).alias(c) if c == "checked_at"
                  else c for c in table.columns]).write.insertInto(OFFSETS_TABLE, overwrite=True)
