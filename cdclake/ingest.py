"""`cdc ingest`: append the new records of Kafka topics to `bronze.kafka_messages`, exactly once.

Spark Structured Streaming's Kafka source (`spark-sql-kafka-0-10`, a jar of pom.xml) reads
what the topics hold beyond the offsets of the subscription's checkpoint
(`$CDC_HOME/checkpoints/ingest-<digest of the subscription>`), with
`trigger(availableNow=True)`: every record there when the run starts, in micro-batches,
then the run ends. Each micro-batch lands as one landing batch, the same columns as
`cdc land` gives (DESIGN §4.1):

* `message_value`: the value as text when it is valid UTF-8, else its base64
  (`value_encoding` 'base64', as `value_base64` of a landed file: Avro payloads);
  `message_key` and header values the same way (text, else base64);
* `source_file`: `kafka:<checkpoint>#<micro-batch>/<topic>/<partition>`, `source_line`:
  the offset (with the landing batch, they identify a record, as a file's path and line do).

Exactly once. Spark writes a micro-batch's offset range to the checkpoint before the batch
and marks it done after: a run killed in between runs the same range again. A landing
batch is visible only once the metastore registers its partition, in one step after its
files are complete; before writing, a micro-batch asks whether bronze already holds its
`source_file` prefix (then it landed before the kill and is skipped), and what a killed
write left in bronze's folder is deleted (cdclake.landing.clear_unregistered_batches).

Before Spark starts streaming, a Kafka admin client checks what a run needs, so that a wrong
address, bad credentials or a missing topic is a one-line error and nothing is written.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cdclake import paths
from cdclake.landing import BRONZE_TABLE, clear_unregistered_batches, ensure_bronze, next_batch_id

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.streaming.listener import StreamingQueryProgress

# what a Kafka option's name says of its value: never printed
SECRET_OPTION = re.compile(r"password|secret|jaas|token|credential|(^|\.)key$", re.IGNORECASE)

# text when the bytes are valid UTF-8, else their base64 (in one line: base64() breaks lines
# every 76 characters unless spark.sql.chunkBase64String.enabled is false)
_TEXT_OR_BASE64 = ("case when is_valid_utf8(cast({0} as string)) then cast({0} as string) "
                   "else regexp_replace(base64({0}), '[\\\\r\\\\n]', '') end")

# bronze's columns from those of Spark's Kafka source; then the landing's own
_BRONZE_COLUMNS = [
    "topic",
    "partition as kafka_partition",
    "offset as kafka_offset",
    "timestamp as kafka_ts",
    f"{_TEXT_OR_BASE64.format('key')} as message_key",
    f"{_TEXT_OR_BASE64.format('value')} as message_value",
    "case when value is null or is_valid_utf8(cast(value as string)) then 'text' else 'base64' end as value_encoding",
    f"transform(coalesce(headers, array()), h -> named_struct('key', h.key, 'value', "
    f"{_TEXT_OR_BASE64.format('h.value')})) as headers",
]


class IngestError(Exception):
    """Kafka cannot be read as asked (the message says why); nothing was written."""


@dataclass(frozen=True)
class Subscription:
    """What `cdc ingest` reads, from where, and how."""

    bootstrap_servers: str
    topics: tuple[str, ...] = ()
    topic_pattern: str | None = None
    starting_offsets: str = "earliest"
    max_offsets_per_batch: int | None = None
    # Kafka client settings (SASL, SSL, timeouts), without Spark's `kafka.` prefix
    client_options: Mapping[str, str] = field(default_factory=dict)
    declared_format: str | None = None
    timeout_s: float = 30.0

    def __post_init__(self) -> None:
        if bool(self.topics) == (self.topic_pattern is not None):
            raise IngestError("give the topics (--topics a,b) or a pattern (--topic-pattern REGEX), not both")
        if self.topic_pattern is not None:
            try:
                re.compile(self.topic_pattern)
            except re.error as exc:
                raise IngestError(f"--topic-pattern {self.topic_pattern!r} is not a regular expression: {exc}") \
                    from None
        if self.max_offsets_per_batch is not None and self.max_offsets_per_batch < 1:
            raise IngestError("--max-offsets-per-batch must be at least 1")

    @property
    def name(self) -> str:
        """The checkpoint's name: a digest of what is subscribed (a changed subscription
        starts a checkpoint of its own, from --starting-offsets)."""
        what = f"pattern:{self.topic_pattern}" if self.topic_pattern is not None else \
            "topics:" + ",".join(sorted(self.topics))
        return "ingest-" + hashlib.sha256(what.encode()).hexdigest()[:16]

    def checkpoint(self) -> Path:
        return paths.cdc_home() / "checkpoints" / self.name

    def kafka_properties(self) -> dict[str, str]:
        """The Kafka client's settings."""
        return {**self.client_options, "bootstrap.servers": self.bootstrap_servers}

    def timeout_properties(self) -> dict[str, str]:
        """How long a Kafka client waits for the brokers per call: --timeout."""
        timeout_ms = str(int(self.timeout_s * 1000))
        return {"default.api.timeout.ms": timeout_ms, "request.timeout.ms": timeout_ms}

    def source_options(self) -> dict[str, str]:
        """The options of Spark's Kafka source."""
        # Spark's own admin client and consumers give up on the brokers after --timeout too
        # (Spark's defaults: a minute per call, three calls), unless a client option says otherwise
        properties = {**self.timeout_properties(), **self.kafka_properties()}
        options = {f"kafka.{k}": v for k, v in properties.items()}
        if self.topic_pattern is not None:
            options["subscribePattern"] = self.topic_pattern
        else:
            options["subscribe"] = ",".join(self.topics)
        options["startingOffsets"] = self.starting_offsets
        options["includeHeaders"] = "true"
        # a record deleted by retention before it was read fails the run: no silent loss
        options["failOnDataLoss"] = "true"
        if self.max_offsets_per_batch is not None:
            options["maxOffsetsPerTrigger"] = str(self.max_offsets_per_batch)
        return options


def printable(options: Mapping[str, str]) -> dict[str, str]:
    """`options` with the values of secret settings masked."""
    return {k: "*****" if SECRET_OPTION.search(k) else v for k, v in options.items()}


def read_client_config(path: Path) -> dict[str, str]:
    """A Kafka client properties file (`key=value` lines, `#` comments), as Kafka's own
    tools take with --command-config."""
    options: dict[str, str] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise IngestError(f"cannot read {path}: {exc.strerror}") from None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(("#", "!")):
            continue
        match = re.fullmatch(r"([^=:\s]+)\s*[=:]\s*(.*)", line)
        if match is None:
            raise IngestError(f"{path}:{number}: not a `key=value` line")
        options[match[1]] = match[2]
    return options


@dataclass(frozen=True)
class Ingested:
    """What one run landed: per landing batch its records; the offsets reached per
    topic and partition (the next offset to read)."""

    batches: dict[int, int]
    skipped: list[int]
    end_offsets: dict[str, dict[str, int]]

    @property
    def records(self) -> int:
        return sum(self.batches.values())


@contextmanager
def _admin(spark: SparkSession, subscription: Subscription) -> Iterator[Any]:
    """A Kafka admin client in the session's JVM (kafka-clients is on its class path)."""
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    props = jvm.java.util.Properties()
    for key, value in {**subscription.kafka_properties(), **subscription.timeout_properties()}.items():
        props.setProperty(key, value)
    admin = jvm.org.apache.kafka.clients.admin.Admin.create(props)
    try:
        yield admin
    finally:
        admin.close(jvm.java.time.Duration.ofSeconds(5))


def _kafka_error(exc: Exception) -> str:
    """The Kafka exception under a py4j error, in one line: its class and message."""
    java = getattr(exc, "java_exception", None)
    while java is not None and java.getCause() is not None and \
            java.getClass().getName().startswith("java.util.concurrent"):
        java = java.getCause()
    if java is None:
        return str(exc).splitlines()[0]
    return f"{java.getClass().getSimpleName()}: {java.getMessage()}"


def check_topics(spark: SparkSession, subscription: Subscription) -> list[str]:
    """The topics the subscription reads, asked of the brokers; IngestError when they
    cannot be reached, refuse the credentials, or hold no such topic."""
    from py4j.protocol import Py4JJavaError

    units = spark.sparkContext._jvm.java.util.concurrent.TimeUnit  # type: ignore[union-attr]
    try:
        with _admin(spark, subscription) as admin:
            names = sorted(admin.listTopics().names().get(int(subscription.timeout_s) + 5, units.SECONDS))
    except Py4JJavaError as exc:
        raise IngestError(f"cannot list the topics of {subscription.bootstrap_servers}: {_kafka_error(exc)}") \
            from None
    if subscription.topic_pattern is not None:
        pattern = re.compile(subscription.topic_pattern)
        found = [name for name in names if pattern.fullmatch(name)]
        if not found:
            raise IngestError(f"no topic of {subscription.bootstrap_servers} matches "
                              f"--topic-pattern {subscription.topic_pattern!r}")
        return found
    missing = [topic for topic in subscription.topics if topic not in names]
    if missing:
        raise IngestError(f"no topic {', '.join(map(repr, missing))} on {subscription.bootstrap_servers} "
                          f"(it has {len(names)} topics)")
    return list(subscription.topics)


def _landed(spark: SparkSession, prefix: str) -> int | None:
    """The landing batch of a micro-batch that landed before (its `source_file` prefix)."""
    rows = spark.sql(f"select landing_batch_id from {BRONZE_TABLE} where startswith(source_file, :p) limit 1",
                     args={"p": prefix}).collect()
    return None if not rows else int(rows[0][0])


class _BatchWriter:
    """The micro-batch function: lands a micro-batch once, whatever runs it again."""

    def __init__(self, spark: SparkSession, subscription: Subscription) -> None:
        self.spark = spark
        self.subscription = subscription
        self.batches: dict[int, int] = {}
        self.skipped: list[int] = []

    def __call__(self, frame: DataFrame, epoch: int) -> None:
        spark = self.spark
        prefix = f"kafka:{self.subscription.name}#{epoch}/"
        earlier = _landed(spark, prefix)
        if earlier is not None:
            self.skipped.append(earlier)
            return
        batch_id = next_batch_id(spark)
        clear_unregistered_batches(spark, [batch_id])
        from pyspark.sql import functions as F

        frame.selectExpr(*_BRONZE_COLUMNS).select(
            "*",
            F.lit(self.subscription.declared_format).cast("string").alias("declared_format"),
            F.concat(F.lit(prefix), "topic", F.lit("/"), "kafka_partition").alias("source_file"),
            F.col("kafka_offset").alias("source_line"),
            F.current_timestamp().alias("landed_at"),
            F.lit(None).cast("string").alias("land_error"),
            F.lit(batch_id).cast("bigint").alias("landing_batch_id"),
        ).write.insertInto(BRONZE_TABLE)
        self.batches[batch_id] = spark.sql(
            f"select count(*) from {BRONZE_TABLE} where landing_batch_id = {batch_id}").collect()[0][0]


def _end_offsets(progress: list[StreamingQueryProgress]) -> dict[str, dict[str, int]]:
    """The offsets the run reached per topic and partition, from the query's progress."""
    offsets: dict[str, dict[str, int]] = {}
    for report in progress:
        for source in report.sources:
            end = json.loads(source.endOffset) if source.endOffset else {}
            for topic, partitions in end.items():
                offsets.setdefault(topic, {}).update({str(p): int(o) for p, o in partitions.items()})
    return offsets


def ingest(spark: SparkSession, subscription: Subscription) -> Ingested:
    """Land every record the subscription's topics hold beyond its checkpoint."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException

    check_topics(spark, subscription)
    ensure_bronze(spark)
    writer = _BatchWriter(spark, subscription)
    reader = spark.readStream.format("kafka")
    for key, value in subscription.source_options().items():
        reader = reader.option(key, value)
    query = (reader.load().writeStream
             .queryName(subscription.name.replace("-", "_"))
             .option("checkpointLocation", str(subscription.checkpoint()))
             .trigger(availableNow=True)
             .foreachBatch(writer)
             .start())
    try:
        query.awaitTermination()
    except (PySparkException, Py4JJavaError) as exc:
        first = next((line for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        raise IngestError(f"reading {subscription.bootstrap_servers} failed: {first}") from None
    return Ingested(writer.batches, writer.skipped, _end_offsets(query.recentProgress))
