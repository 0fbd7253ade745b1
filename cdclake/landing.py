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

from cdclake import paths
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

# per `cdc ingest` subscription, topic and partition: the offsets it measured (cdclake.lag)
OFFSETS_TABLE = "bronze.kafka_offsets"
OFFSETS_DDL = f"""
create table if not exists {OFFSETS_TABLE} (
    subscription string,
    topic string,
    kafka_partition int,
    latest_offset bigint,
    next_offset bigint,
    oldest_waiting_ts timestamp,
    checked_at timestamp
)
using parquet
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


# the longest JSON string Spark's parsers read (Jackson's StreamReadConstraints default,
# which try_parse_json keeps): a line holding a longer one parses as NULL
JSON_STRING_LIMIT = 20_000_000

# Bronze columns from the view `lines` (cdclake.landing._read_lines): an
# envelope or kcat line's JSON fields, a plain line as the message of `given_topic` at
# partition 0 and the offset after `first_offset` that its place among the topic's plain
# lines gives.
_LINES_SQL = f"""
with parsed as (
    select *, case when shape != 'plain' then try_parse_json(line) end as v from lines
),
fields as (
    select
        *,
        try_variant_get(v, '$.topic', 'string') as record_topic,
        try_variant_get(v, '$.partition', 'int') as record_partition,
        try_variant_get(v, '$.offset', 'bigint') as record_offset,
        case when shape = 'kcat' then try_variant_get(v, '$.ts', 'bigint')
             else try_variant_get(v, '$.timestamp', 'bigint') end as ts_ms,
        try_variant_get(v, '$.key', 'string') as record_key,
        case when shape = 'kcat' then try_variant_get(v, '$.payload', 'string')
             else try_variant_get(v, '$.value', 'string') end as text_value,
        try_variant_get(v, '$.value_base64', 'string') as base64_value,
        try_variant_get(v, '$.headers', 'variant') as h
    from parsed
),
json_lines as (
    select
        coalesce(record_topic, given_topic) as topic,
        coalesce(record_partition, 0) as kafka_partition,
        coalesce(record_offset, line_no) as kafka_offset,
        -- a time Spark cannot hold (0001-9999) would fail the whole landing: NULL instead
        case when ts_ms between -62135596800000 and 253402300799999 then timestamp_millis(ts_ms) end as kafka_ts,
        record_key as message_key,
        case when v is null then line else coalesce(base64_value, text_value) end as message_value,
        case when base64_value is not null then 'base64' else 'text' end as value_encoding,
        {_HEADERS} as headers,
        path,
        batch_id,
        declared_format,
        line_no,
        case
            when v is null and octet_length(line) > {JSON_STRING_LIMIT} then
                'line is ' || octet_length(line) || ' bytes and was not parsed: Spark reads no JSON string '
                || 'of over {JSON_STRING_LIMIT} characters'
            when v is null then 'line is not valid JSON'
            when schema_of_variant(v) not like 'OBJECT%' then 'line is not a JSON object'
            when coalesce(record_topic, given_topic) is null then 'record has no topic and no --topic was given'
            when record_offset is null and record_partition is not null then 'record has a partition but no offset'
            when base64_value is not null and try_to_binary(base64_value, 'base64') is null
                then 'value_base64 is not valid base64'
        end as land_error
    from fields
    where shape != 'plain'
),
plain_lines as (
    select
        given_topic as topic,
        0 as kafka_partition,
        first_offset + row_number() over (partition by given_topic order by file_index, line_no) - 1 as kafka_offset,
        cast(null as timestamp) as kafka_ts,
        cast(null as string) as message_key,
        line as message_value,
        'text' as value_encoding,
        cast(array() as array<struct<key: string, value: string>>) as headers,
        path,
        batch_id,
        declared_format,
        line_no,
        cast(null as string) as land_error
    from lines
    where shape = 'plain'
)
select * from json_lines
union all
select * from plain_lines
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
    """Bronze's tables exist: the landed records, and the Kafka offsets `cdc ingest` measures
    (the dbt source of gold.cdc_kafka_lag, empty in a lake landed from files only)."""
    spark.sql("create database if not exists bronze")
    spark.sql(BRONZE_DDL)
    spark.sql(OFFSETS_DDL)


def next_batch_id(spark: SparkSession) -> int:
    rows = spark.sql(f"show partitions {BRONZE_TABLE}").collect()
    ids = [int(r[0].split("=", 1)[1]) for r in rows]
    return max(ids, default=0) + 1


def clear_unregistered_batches(spark: SparkSession, batch_ids: list[int]) -> None:
    """Delete what a landing killed while it wrote left in bronze's folder: the folders of
    these landing batches, which the metastore does not know yet (bronze shows a batch once
    the metastore registers its partition, after all its files are written), and the
    write's temporary folders (`_temporary`: Hadoop's job commit would move a killed job's
    finished task files into the next write's batch). Run by the process that holds
    CDC_HOME, before it writes these batches."""
    import shutil
    import sys

    rows = spark.sql(f"describe formatted {BRONZE_TABLE}").collect()
    location = next(r["data_type"] for r in rows if r["col_name"] == "Location")
    folder = Path(_local_path(location))
    leftovers = [paths.batch_folder(folder, batch_id) for batch_id in batch_ids]
    leftovers += [folder / "_temporary", *folder.glob(".spark-staging-*")]
    for leftover in leftovers:
        if leftover.exists():
            print(f"cdc: removed {leftover}: left in bronze by an interrupted landing", file=sys.stderr)
            shutil.rmtree(leftover)


def _next_plain_offsets(spark: SparkSession, topics: set[str]) -> dict[str, int]:
    """Per topic, the offset after the highest one landed in its partition 0."""
    if not topics:
        return {}
    rows = spark.sql(
        f"""select topic, max(kafka_offset) as last from {BRONZE_TABLE}
            where kafka_partition = 0 and array_contains(:topics, topic) group by topic""",
        args={"topics": sorted(topics)},
    ).collect()
    last = {r["topic"]: r["last"] for r in rows}
    return {topic: 0 if last.get(topic) is None else int(last[topic]) + 1 for topic in topics}


def _local_path(file_path: str) -> str:
    """A path as Spark's `_metadata.file_path` gives it (a `file:` URI) as a local one."""
    from urllib.parse import unquote, urlparse

    return unquote(urlparse(file_path).path) if file_path.startswith("file:") else file_path


@dataclass(frozen=True)
class _FileLanding:
    """One file of one landing: which batch it lands in, as what."""

    file_index: int
    path: Path
    shape: str
    batch_id: int
    topic: str | None
    declared_format: str | None


def _read_lines(spark: SparkSession, files: list[_FileLanding]) -> DataFrame:
    """Every file's non-blank lines with their 1-based line numbers and their landing's
    fields (view `lines`), read in one pass, all in the JVM.

    Spark reads a file in splits (several small files may share a partition); the lines
    of one split come in file order. A line's number is its position in its split plus
    the lines of the file's earlier splits, counted in one job for all files.
    """
    from pyspark.sql import functions as F

    paths = sorted({str(f.path) for f in files})
    text = spark.read.text(paths).select(
        F.col("value").alias("line"),
        F.col("_metadata.file_path").alias("file_path"),
        F.col("_metadata.file_block_start").alias("block_start"),
        F.monotonically_increasing_id().alias("mono"),
    )
    counted = text.groupBy("file_path", "block_start").agg(
        F.min("mono").alias("first_mono"), F.count("*").alias("n")).collect()
    # per split, its file's local path and what turns its rows' mono into line numbers:
    # the lines of the file's earlier splits minus the split's first mono
    splits: list[tuple[str, int, str, int]] = []
    before: dict[str, int] = {}
    for split in sorted(counted, key=lambda r: (r["file_path"], r["block_start"])):
        file_path = split["file_path"]
        splits.append((file_path, split["block_start"], _local_path(file_path),
                       before.get(file_path, 0) - split["first_mono"]))
        before[file_path] = before.get(file_path, 0) + split["n"]
    split_frame = spark.createDataFrame(
        splits, "file_path string, block_start bigint, path string, base bigint")
    numbered = text.join(F.broadcast(split_frame), ["file_path", "block_start"]).select(
        F.regexp_replace("line", "\r$", "").alias("line"),
        "path",
        (F.col("base") + F.col("mono") + 1).alias("line_no"),
    ).where("trim(line) != ''")
    plain_offsets = _next_plain_offsets(spark, {f.topic for f in files if f.shape == "plain" and f.topic})
    assignments = spark.createDataFrame(
        [(str(f.path), f.file_index, f.shape, f.batch_id, f.topic, f.declared_format,
          plain_offsets.get(f.topic) if f.shape == "plain" and f.topic else None) for f in files],
        "path string, file_index int, shape string, batch_id bigint, given_topic string, "
        "declared_format string, first_offset bigint",
    )
    # a file landed twice in one write gives its lines to each of its landings
    return numbered.join(F.broadcast(assignments), "path")


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
    clear_unregistered_batches(spark, batch_ids)
    files: list[_FileLanding] = []
    for batch_id, landing, shapes in zip(batch_ids, landings, plans, strict=True):
        for path, shape in shapes:
            if shape != "empty":
                files.append(_FileLanding(len(files), path, shape, batch_id, landing.topic, landing.declared_format))
    counts: dict[tuple[int, str], tuple[int, int]] = {}
    if files:
        from cdclake.runtime import fit_codegen

        # the landing's queries run on the code generation of the lake with its files in
        # bronze (cdclake.runtime): more bytes of files than a small landing's land on generated code
        fit_codegen(spark, landing=sum(f.path.stat().st_size for f in files))
        try:
            counts = _write_lines(spark, files, batch_ids)
        finally:
            fit_codegen(spark)
    return [
        (batch_id, [LandedFile(str(p), s, *counts.get((batch_id, str(p)), (0, 0))) for p, s in shapes])
        for batch_id, shapes in zip(batch_ids, plans, strict=True)
    ]


def _write_lines(spark: SparkSession, files: list[_FileLanding],
                 batch_ids: list[int]) -> dict[tuple[int, str], tuple[int, int]]:
    """Write the lines of `files` into their landing batches `batch_ids` of bronze, in one
    write; per (batch id, file) its records and those with a land error."""
    from pyspark.sql import functions as F

    _read_lines(spark, files).createOrReplaceTempView("lines")
    rows = spark.sql(_LINES_SQL)
    first_batch, last_batch = batch_ids[0], batch_ids[-1]
    label = f"landing batch {first_batch}" + (f"-{last_batch}" if last_batch > first_batch else "")
    with SparkProgress(spark.sparkContext, label):
        rows.select(
            "topic", "kafka_partition", "kafka_offset", "kafka_ts", "message_key",
            "message_value", "value_encoding", "headers", "declared_format",
            F.col("path").alias("source_file"),
            F.col("line_no").alias("source_line"),
            F.current_timestamp().alias("landed_at"),
            "land_error",
            F.col("batch_id").alias("landing_batch_id"),
        ).write.insertInto(BRONZE_TABLE)
    return {
        (r["landing_batch_id"], r["source_file"]): (r["records"], r["errors"])
        for r in spark.sql(
            f"""select landing_batch_id, source_file, count(*) as records, count(land_error) as errors
                from {BRONZE_TABLE} where landing_batch_id between {first_batch} and {last_batch}
                group by landing_batch_id, source_file"""
        ).collect()
    }
