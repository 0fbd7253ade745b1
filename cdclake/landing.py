"""`cdc land`: append Kafka records from files to `bronze.kafka_messages`.

Three input shapes, decided per file from its first non-blank line (DESIGN §4.1):

* `envelope`: our JSON lines `{"topic","partition","offset","timestamp","key","value"|"value_base64","headers"}`;
* `kcat`: the JSON lines of `kcat -C -J` (`topic, partition, offset, ts, key, payload, headers`);
* `plain`: one message per line; needs `--topic`; partition 0, offsets continue after the
  highest offset already landed for that topic.

Every line lands, also a broken one: a line that is not a valid record keeps its text in
`message_value` and says why in `land_error`, and silver rejects it with that reason.
Spark reads the files, so landing scales with the cluster, not with this process.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cdclake.formats import KNOWN_FORMATS
from cdclake.progress import SparkProgress

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

BRONZE_TABLE = "bronze.kafka_messages"

BRONZE_DDL = f"""
create table if not exists {BRONZE_TABLE} (
    topic string,
    kafka_partition int,
    kafka_offset bigint,
    kafka_ts timestamp,
    message_key string,
    message_value string,
    value_encoding string,
    headers array<struct<key: string, value: string>>,
    declared_format string,
    source_file string,
    source_line bigint,
    landed_at timestamp,
    land_error string,
    landing_batch_id bigint
)
using parquet
partitioned by (landing_batch_id)
"""

# Kafka headers as given: an object, kcat's flat ["k","v",...] list, or [{"key","value"}].
_HEADERS = """
case
    when h is null or is_variant_null(h) then cast(array() as array<struct<key: string, value: string>>)
    when schema_of_variant(h) like 'OBJECT%' then
        transform(map_entries(try_variant_get(h, '$', 'map<string,string>')),
                  e -> named_struct('key', e.key, 'value', e.value))
    when schema_of_variant(h) like 'ARRAY<OBJECT%' then
        try_variant_get(h, '$', 'array<struct<key: string, value: string>>')
    when coalesce(size(try_variant_get(h, '$', 'array<string>')), 0) < 2 then
        cast(array() as array<struct<key: string, value: string>>)
    when schema_of_variant(h) like 'ARRAY%' then
        transform(sequence(0, size(try_variant_get(h, '$', 'array<string>')) div 2 - 1),
                  i -> named_struct('key', try_variant_get(h, '$', 'array<string>')[2 * i],
                                    'value', try_variant_get(h, '$', 'array<string>')[2 * i + 1]))
end
"""


def _json_shape_sql(value_key: str, ts_key: str) -> str:
    """Project envelope or kcat JSON lines (view `lines`: line, line_no) to bronze columns."""
    return f"""
    with parsed as (
        select line, line_no, try_parse_json(line) as v from lines
    ),
    fields as (
        select
            line, line_no, v,
            try_variant_get(v, '$.topic', 'string') as topic,
            try_variant_get(v, '$.partition', 'int') as kafka_partition,
            try_variant_get(v, '$.offset', 'bigint') as kafka_offset,
            try_variant_get(v, '$.{ts_key}', 'bigint') as ts_ms,
            try_variant_get(v, '$.key', 'string') as message_key,
            try_variant_get(v, '$.{value_key}', 'string') as text_value,
            try_variant_get(v, '$.value_base64', 'string') as base64_value,
            try_variant_get(v, '$.headers', 'variant') as h
        from parsed
    )
    select
        coalesce(topic, :topic) as topic,
        coalesce(kafka_partition, 0) as kafka_partition,
        coalesce(kafka_offset, line_no) as kafka_offset,
        -- a time Spark cannot hold (0001-9999) would fail the whole landing: NULL instead
        case when ts_ms between -62135596800000 and 253402300799999 then timestamp_millis(ts_ms) end as kafka_ts,
        message_key,
        case when v is null then line else coalesce(base64_value, text_value) end as message_value,
        case when base64_value is not null then 'base64' else 'text' end as value_encoding,
        {_HEADERS} as headers,
        line_no,
        case
            when v is null then 'line is not valid JSON'
            when schema_of_variant(v) not like 'OBJECT%' then 'line is not a JSON object'
            when coalesce(topic, :topic) is null then 'record has no topic and no --topic was given'
            when kafka_offset is null and kafka_partition is not null then 'record has a partition but no offset'
            when base64_value is not null and try_to_binary(base64_value, 'base64') is null
                then 'value_base64 is not valid base64'
        end as land_error
    from fields
    """


_PLAIN_SQL = """
select
    :topic as topic,
    0 as kafka_partition,
    :first_offset + row_number() over (order by line_no) - 1 as kafka_offset,
    cast(null as timestamp) as kafka_ts,
    cast(null as string) as message_key,
    line as message_value,
    'text' as value_encoding,
    cast(array() as array<struct<key: string, value: string>>) as headers,
    line_no,
    cast(null as string) as land_error
from lines
"""


@dataclass(frozen=True)
class LandedFile:
    path: str
    shape: str
    records: int
    errors: int


class LandingError(Exception):
    """A file cannot be landed as asked (the message says why and what to do)."""


def detect_shape(path: Path) -> str:
    """`envelope`, `kcat` or `plain`, from the first non-blank line of the file."""
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line.strip():
                break
        else:
            return "empty"
    try:
        first = json.loads(line)
    except ValueError:
        return "plain"
    if not isinstance(first, dict):
        return "plain"
    keys = set(first)
    if "topic" in keys and keys & {"value", "value_base64"}:
        return "envelope"
    if {"topic", "partition", "offset"} <= keys and "payload" in keys:
        return "kcat"
    return "plain"


def ensure_bronze(spark: SparkSession) -> None:
    spark.sql("create database if not exists bronze")
    spark.sql(BRONZE_DDL)


def next_batch_id(spark: SparkSession) -> int:
    rows = spark.sql(f"show partitions {BRONZE_TABLE}").collect()
    ids = [int(r[0].split("=", 1)[1]) for r in rows]
    return max(ids, default=0) + 1


def _next_plain_offset(spark: SparkSession, topic: str) -> int:
    row = spark.sql(
        f"select max(kafka_offset) from {BRONZE_TABLE} where topic = :topic and kafka_partition = 0",
        args={"topic": topic},
    ).collect()[0]
    return 0 if row[0] is None else int(row[0]) + 1


def _read_lines(spark: SparkSession, path: Path) -> DataFrame:
    """The file's non-blank lines with their 1-based line numbers, all in the JVM.

    Spark splits a text file into partitions in file order; a line's number is its
    position in its partition plus the line counts of the partitions before it.
    """
    from pyspark.sql import functions as F

    text = spark.read.text(str(path)).select(
        F.col("value").alias("line"),
        F.spark_partition_id().alias("part"),
        F.monotonically_increasing_id().alias("mono"),
    )
    counts = sorted((r["part"], r["n"]) for r in text.groupBy("part").agg(F.count("*").alias("n")).collect())
    before, first_line = 0, {}
    for part, n in counts:
        first_line[part] = before
        before += n
    first = F.create_map(*[x for part, start in first_line.items() for x in (F.lit(part), F.lit(start))]) \
        if first_line else F.create_map().cast("map<int,bigint>")
    # mono = (partition << 33) + position in the partition
    position = F.col("mono") - F.shiftleft(F.col("part").cast("bigint"), 33)
    return text.select(
        F.regexp_replace("line", "\r$", "").alias("line"),
        (F.element_at(first, F.col("part")) + position + 1).alias("line_no"),
    ).where("trim(line) != ''")


def _file_frame(spark: SparkSession, path: Path, shape: str, topic: str | None,
                plain_offsets: dict[str, int]) -> DataFrame:
    _read_lines(spark, path).createOrReplaceTempView("lines")
    if shape == "plain":
        assert topic is not None, "plan_landing lets plain files through only with a topic"
        first = plain_offsets.get(topic)
        if first is None:
            first = _next_plain_offset(spark, topic)
        frame = spark.sql(_PLAIN_SQL, args={"topic": topic, "first_offset": first})
        plain_offsets[topic] = first + frame.count()
        return frame
    value_key, ts_key = ("value", "timestamp") if shape == "envelope" else ("payload", "ts")
    return spark.sql(_json_shape_sql(value_key, ts_key), args={"topic": topic})


def plan_landing(files: list[str], topic: str | None = None,
                 declared_format: str | None = None) -> list[tuple[Path, str]]:
    """Each file with its shape, or a LandingError saying why the files cannot land as
    asked: checked from the files alone, before a Spark session is started."""
    if declared_format is not None and declared_format not in KNOWN_FORMATS:
        raise LandingError(
            f"unknown format {declared_format!r}; known formats: {', '.join(KNOWN_FORMATS)}"
        )
    shapes: list[tuple[Path, str]] = []
    for path in (Path(f).resolve() for f in files):
        if not path.is_file():
            raise LandingError(f"{path}: no such file")
        shape = detect_shape(path)
        if shape == "plain" and topic is None:
            raise LandingError(
                f"{path}: lines are plain messages, not Kafka records; give the topic with --topic"
            )
        shapes.append((path, shape))
    return shapes


@dataclass(frozen=True)
class Landing:
    """Files that land as one landing batch: what `cdc land` takes."""

    files: list[str]
    topic: str | None = None
    declared_format: str | None = None


def land(spark: SparkSession, files: list[str], topic: str | None = None,
         declared_format: str | None = None) -> tuple[int, list[LandedFile]]:
    """Land `files` as one new landing batch; returns the batch id and per-file counts."""
    (landed,) = land_batches(spark, [Landing(files, topic, declared_format)])
    return landed


def land_batches(spark: SparkSession, landings: list[Landing]) -> list[tuple[int, list[LandedFile]]]:
    """Land each of `landings` as a landing batch of its own, the batches numbered in
    order, in one write (each write costs about a second however small it is); per
    landing its batch id and per-file counts. Every landing is checked before any lands."""
    plans = [plan_landing(landing.files, landing.topic, landing.declared_format) for landing in landings]
    ensure_bronze(spark)
    first_batch = next_batch_id(spark)
    batch_ids = list(range(first_batch, first_batch + len(landings)))
    from pyspark.sql import functions as F

    frames = []
    plain_offsets: dict[str, int] = {}
    for batch_id, landing, shapes in zip(batch_ids, landings, plans, strict=True):
        for path, shape in shapes:
            if shape == "empty":
                continue
            frame = _file_frame(spark, path, shape, landing.topic, plain_offsets)
            frames.append(
                frame.select(
                    "topic", "kafka_partition", "kafka_offset", "kafka_ts", "message_key",
                    "message_value", "value_encoding", "headers",
                    F.lit(landing.declared_format).cast("string").alias("declared_format"),
                    F.lit(str(path)).alias("source_file"),
                    F.col("line_no").alias("source_line"),
                    F.current_timestamp().alias("landed_at"),
                    "land_error",
                    F.lit(batch_id).cast("bigint").alias("landing_batch_id"),
                )
            )
    counts: dict[tuple[int, str], tuple[int, int]] = {}
    if frames:
        combined = frames[0]
        for frame in frames[1:]:
            combined = combined.unionByName(frame)
        last_batch = batch_ids[-1]
        label = f"landing batch {first_batch}" + (f"-{last_batch}" if last_batch > first_batch else "")
        with SparkProgress(spark.sparkContext, label):
            combined.write.insertInto(BRONZE_TABLE)
        counts = {
            (r["landing_batch_id"], r["source_file"]): (r["records"], r["errors"])
            for r in spark.sql(
                f"""select landing_batch_id, source_file, count(*) as records, count(land_error) as errors
                    from {BRONZE_TABLE} where landing_batch_id between {first_batch} and {last_batch}
                    group by landing_batch_id, source_file"""
            ).collect()
        }
    return [
        (batch_id, [LandedFile(str(p), s, *counts.get((batch_id, str(p)), (0, 0))) for p, s in shapes])
        for batch_id, shapes in zip(batch_ids, plans, strict=True)
    ]
