"""The real-database harness: gold against the databases themselves.

A throw-away MariaDB (binlog, ROW, FULL images and metadata) and a throw-away
PostgreSQL (logical decoding) run a seeded workload (tests/realdb/workload.py: every
common column type at its limits, hostile text, keyed, composite-keyed, varchar-keyed
and keyless tables, multi-row statements, key changes, ADD and DROP COLUMN mid-stream,
TRUNCATE, many changes to one key in one second). Their real change logs are rendered
into every vendor format as the vendor writes it (tests/realdb/render_*.py), partitioned
as the vendor partitions, read in interleaved partition chunks with 5% re-deliveries.
Every stream lands under its own database name in the first step of the examples lake
(tests/examples/conftest.py), which its first build folds whole; then every table of
gold.cdc_current_rows is compared with `SELECT *` of the database, value by value by
column type (tests/realdb/truth.py). A failure names the table, key, column, expected
and actual value.

The same build is the fuzz test: beside the valid streams land over 10,000 mutated copies
of their records and of vendor samples (tests/realdb/fuzz.py: truncation, byte flips,
wrong JSON types, huge numbers, deep nesting, invalid UTF-8, NUL, empty values, wrong
base64, 10 MB strings, unknown ops, absurd timestamps, hostile names), in databases and
topics of their own. The build must succeed, every record must be accounted for, and
the valid streams' gold must still equal the databases: no bad record reaches a valid
table or stops the build.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

import synth
from cdclake import paths
from cdclake.lake import Lake
from cdclake.landing import Landing
from realdb import fuzz, render_alibaba, render_canal, render_debezium
from realdb.delivery import consumer_order, with_redeliveries
from realdb.fixtures import capture_mariadb_workload, capture_postgres_workload
from realdb.model import Capture, Row, TableSchema
from realdb.truth import TableResult, compare_table, without_columns
from realdb.workload import POSTGRES_SCALE

pytestmark = pytest.mark.realdb

Renderer = Callable[..., list[synth.Record]]


@dataclass(frozen=True)
class Stream:
    """One vendor rendering of one capture, landed under database `db`."""

    db: str
    format_id: str
    source: str  # "mariadb" or "postgres"
    render: Renderer
    # the vendor carries no TRUNCATE (or DDL): the expected state folds the log without it
    without_truncate: bool = False
    # the parts of a table id: db.table (MariaDB), db.schema.table (PostgreSQL), or
    # schema.table (CDL 1.0 names no database)
    id_parts: tuple[str, ...] = ("db", "table")
    # column types the vendor cannot carry exactly (a full-type pattern -> why): left out
    lost: tuple[tuple[str, str], ...] = ()
    # the vendor's messages name no key: the harness declares the source's keys (var
    # cdc_primary_keys), as a user of such a format does
    declare_keys: bool = False
    # the vendor's messages carry no types: the harness declares the source's column types
    # (var cdc_tables), as a user of such a format does
    declare_columns: bool = False
    # the vendor writes dates through java.util.Date: the ten days 1582-10-05..14, which
    # its calendar does not have, come out ten days later (it reads them as Julian dates)
    java_dates: bool = False
    # the vendor types JSON columns as text: their documents are compared as written
    json_as_text: bool = False


BINARY_N = (r"binary\(\d+\)", "BINARY(n): the binlog strips trailing zero bytes and the message gives no length")
MILLISECONDS = (r"(datetime|timestamp|time)\([4-6]\)", "java.util.Date: milliseconds only")

PG_IDS = ("db", "schema", "table")
PG_CONNECT_MS = (r"(timestamp|time)(\([4-6]\))? with(out)? time zone",
                 "Kafka Connect Timestamp and Time: milliseconds only")

STREAMS = [
    Stream("rdb_canal", "canal_json", "mariadb", render_canal.render_canal_json),
    Stream("rdb_dts_canal", "canal_json", "mariadb", render_canal.render_canal_json_dts),
    Stream("rdb_canal_legacy", "canal_json_legacy", "mariadb", render_canal.render_canal_json_legacy),
    Stream("rdb_drs", "drs_json", "mariadb", render_canal.render_drs_json, lost=(BINARY_N,)),
    Stream("rdb_drs_c", "drs_json_c", "mariadb", render_canal.render_drs_json_c, lost=(BINARY_N,)),
    Stream("rdb_dbz", "debezium_json", "mariadb",
           lambda c, db, topic: render_debezium.render_debezium_mysql(c, db, topic, schemas=True),
           lost=((r"bigint\(\d+\) unsigned", "bigint.unsigned.handling.mode=long (the default) wraps 2^63 and up"),
                 (r"year(\(4\))?", "Debezium sends YEAR 0000 as 1900"))),
    Stream("rdb_dbz_plain", "debezium_json", "mariadb",
           lambda c, db, topic: render_debezium.render_debezium_mysql(c, db, topic, schemas=False),
           declare_columns=True,
           lost=((r"bigint\(\d+\) unsigned", "bigint.unsigned.handling.mode=long (the default) wraps 2^63 and up"),
                 (r"year(\(4\))?", "Debezium sends YEAR 0000 as 1900"))),
    Stream("rdb_dataworks", "dataworks_json", "mariadb", render_alibaba.render_dataworks_json,
           without_truncate=True, lost=(BINARY_N, MILLISECONDS), declare_columns=True, java_dates=True),
    Stream("rdb_datahub", "datahub_tuple", "mariadb", render_alibaba.render_datahub_tuple, without_truncate=True,
           declare_keys=True, declare_columns=True, java_dates=True,
           lost=(BINARY_N, MILLISECONDS,
                 (r"(tiny|medium|long)?blob|varbinary\(\d+\)", "DataHub Tuple has no binary type: UTF-8 text"))),
    Stream("rdb_shareplex", "shareplex_json", "mariadb", render_alibaba.render_shareplex_json, declare_keys=True,
           lost=((r"(tiny|medium|long)?blob|(var)?binary\(\d+\)",
                  "Shareplex Json carries no types: binary as hex text cannot be told from text"),)),
    Stream("rdb_dts_avro", "dts_avro", "mariadb", render_alibaba.render_dts_avro, lost=(BINARY_N,)),
    Stream("rdb_drs_avro", "drs_avro", "mariadb", render_alibaba.render_drs_avro, lost=(BINARY_N,), declare_keys=True),
    Stream("pg_dbz", "debezium_json", "postgres",
           lambda c, db, topic: render_debezium.render_debezium_postgres(c, db, topic, schemas=True),
           id_parts=PG_IDS),
    Stream("pg_drs", "drs_json", "postgres", render_canal.render_drs_json_postgres, id_parts=PG_IDS),
    # CDL sends neither TRUNCATE nor DDL (the vendor page shows PostgreSQL sources only)
    Stream("pg_cdl", "cdl_json", "postgres", render_debezium.render_cdl_json, without_truncate=True,
           id_parts=("schema", "table"), json_as_text=True, lost=(PG_CONNECT_MS,)),
    Stream("pg_cdl2", "debezium_json", "postgres", render_debezium.render_cdl_debezium, without_truncate=True,
           id_parts=PG_IDS, json_as_text=True,
           lost=((r"time(\([4-6]\))? without time zone", "Kafka Connect Time: milliseconds only"),)),
]


@dataclass
class FuzzFigures:
    """What the fuzz records did, read from the lake right after the build."""

    by_mutation: dict[str, int]
    landed: int
    accounted: int
    rejects_by_reason: list[tuple[str, int]]
    changes: int
    build_seconds: float


@dataclass
class Harness:
    lake: Lake
    captures: dict[str, Capture]
    results: dict[str, list[TableResult]]
    # rejects of the valid streams' records (stage, reason, count)
    valid_rejects: list[dict]
    fuzz: FuzzFigures


FUZZ_PER_STREAM = 1000
SAMPLE_SEEDS = (("cdl_json_v1.ndjson", "cdl_json"), ("drs_mongo.ndjson", "drs_mongo_json"))


def fuzz_seeds(delivered: dict[str, list[synth.Record]]) -> list[fuzz.Seed]:
    """Valid records of the MariaDB streams (a sample of each; they render every format
    but CDL 1.0's) and of the CDL 1.0 and DRS DDS samples, moved to fuzz databases and
    topics; one in ten lands without a declared format (routing and detection by shape).
    Not the PostgreSQL streams: a mutation that blanks the database of one of their
    records leaves schema.table, the table id of the valid CDL 1.0 stream (which names
    no database), and its rows would rightly land there."""
    rng = random.Random(11)
    seeds = []
    for stream in STREAMS:
        if stream.source != "mariadb":
            continue
        for record in rng.sample(delivered[stream.db], min(FUZZ_PER_STREAM, len(delivered[stream.db]))):
            seeds.append(fuzz.Seed(fuzz.moved(record, f"fzz_{stream.db}.cdc"),
                                   None if rng.random() < 0.1 else stream.format_id))
    for name, format_id in SAMPLE_SEEDS:
        lines = (paths.SAMPLES_DIR / name).read_text(encoding="utf-8").splitlines()
        for n, line in enumerate(lines * 10):
            seeds.append(fuzz.Seed(synth.Record(f"fzz_{format_id}.cdc", 0, n, 1700000000000, fuzz.moved_sample(line)),
                                   format_id))
    return seeds


def fuzz_landings(tmp: Path, delivered: dict[str, list[synth.Record]]) -> tuple[list[Landing], dict[str, int]]:
    """The mutants as landings, one per declared format, and their counts by mutation."""
    mutants = fuzz.mutants(fuzz_seeds(delivered), seed=5)
    landings, by_mutation = [], {}
    for format_id in sorted({m.declared_format or "" for m in mutants}):
        path = tmp / f"fuzz_{format_id or 'undeclared'}.jsonl"
        with open(path, "wb") as handle:
            for m in mutants:
                if (m.declared_format or "") == format_id:
                    handle.write(m.line + b"\n")
        landings.append(Landing([str(path)], declared_format=format_id or None))
    for m in mutants:
        by_mutation[m.mutation] = by_mutation.get(m.mutation, 0) + 1
    return landings, by_mutation


def fuzz_figures(lake: Lake, batches: list[int], by_mutation: dict[str, int], seconds: float) -> FuzzFigures:
    where = f"landing_batch_id in ({', '.join(map(str, batches))})"
    landed = lake.rows(f"select count(*) as n from bronze.kafka_messages where {where}")[0]["n"]
    # as the data test assert_every_bronze_record_accounted_for (which the build ran):
    # each record in exactly one place
    places = " union all ".join(
        f"select {distinct}landing_batch_id, source_file, source_line from silver.{view} where {where}{extra}"
        for view, extra, distinct in (("cdc_changes", " and pair_key is null", "distinct "),
                                      ("cdc_update_halves", "", ""),
                                      ("cdc_ddl_events", "", ""), ("cdc_heartbeats", "", ""),
                                      ("cdc_rejects", "", ""), ("stg_cdc__messages", " and is_duplicate", "")))
    accounted = lake.rows(f"""
        select count(*) as n from (
            select b.source_line from bronze.kafka_messages as b
            left join ({places}) as p
                on b.landing_batch_id = p.landing_batch_id and b.source_file = p.source_file
                and b.source_line = p.source_line
            where b.{where}
            group by b.landing_batch_id, b.source_file, b.source_line
            having count(p.source_line) = 1
        )""")[0]["n"]
    rejects = [(r["reason"], r["n"]) for r in lake.rows(
        f"select reject_stage || ': ' || substr(reject_reason, 1, 120) as reason, count(*) as n "
        f"from silver.cdc_rejects where {where} group by 1 order by n desc, reason")]
    changes = lake.rows(f"select count(*) as n from silver.cdc_changes where {where}")[0]["n"]
    return FuzzFigures(by_mutation, landed, accounted, rejects, changes, seconds)


def as_delivered(capture: Capture, json_as_text: bool) -> Capture:
    """JSON columns compared as text where the vendor sees text: MariaDB's JSON is LONGTEXT
    with a check (every vendor sees text, and the database gives back the document as it
    was written), and some vendors type PostgreSQL json/jsonb as plain strings."""
    if capture.source != "mariadb" and not json_as_text:
        return capture
    final = {}
    for key, (schema, rows) in capture.final.items():
        columns = tuple(replace(c, type="text") if c.type in ("json", "jsonb") else c for c in schema.columns)
        final[key] = (replace(schema, columns=columns), rows)
    return replace(capture, final=final)


GREGORIAN_GAP = (dt.date(1582, 10, 5), dt.date(1582, 10, 14))


def as_java_wrote(rows: list[Row]) -> list[Row]:
    """The rows with the dates Java's calendar cannot hold (1582-10-05 to 1582-10-14,
    skipped by the Gregorian reform) moved ten days on, as java.util.Date writes them."""
    def moved(value: Any) -> Any:
        day = value.date() if isinstance(value, dt.datetime) else value
        if isinstance(day, dt.date) and GREGORIAN_GAP[0] <= day <= GREGORIAN_GAP[1]:
            return value + dt.timedelta(days=10)
        return value
    return [{k: moved(v) for k, v in row.items()} for row in rows]


def table_id(stream: Stream, schema: TableSchema) -> str:
    parts = {"db": stream.db, "schema": schema.schema, "table": schema.name}
    return ".".join(parts[p] or "" for p in stream.id_parts).lower()


def expected_tables(stream: Stream, capture: Capture) -> dict[str, tuple[TableSchema, list]]:
    """Table id -> (schema now, rows now): SELECT * of the database. A vendor that cannot
    carry TRUNCATE cannot give the state of a truncated table: those are left out."""
    truncated = {(e.db, e.table) for e in capture.events if e.op == "TRUNCATE"} if stream.without_truncate else set()
    return {table_id(stream, schema): (schema, as_java_wrote(rows) if stream.java_dates else rows)
            for schema, rows in capture.final.values()
            if (schema.db, schema.name) not in truncated and (schema.schema, schema.name) not in truncated}


def land_examples(lake: Lake, tmp: Path) -> Iterator[None]:
    """One step of the examples lake (tests/examples/conftest.py): every stream and the
    mutants of each format a landing batch of their own, with the keys and types the
    formats without them need declared; after the build, the comparison."""
    # the MariaDB workload at PostgreSQL's volume: the examples lake holds 13,600 of its
    # records instead of 32,600 (its fixture took 28 s less); test_realdb_capture checks
    # the capture of the full workload
    captures = {"mariadb": capture_mariadb_workload(tmp / "mariadb", scale=POSTGRES_SCALE),
                "postgres": capture_postgres_workload(tmp / "postgres")}
    delivered: dict[str, list[synth.Record]] = {}
    valid_batches = []
    for n, stream in enumerate(STREAMS):
        topic = f"{stream.db}.cdc"
        records = stream.render(captures[stream.source], stream.db, topic)
        delivered[stream.db] = consumer_order(with_redeliveries(records, 0.05, seed=n), seed=n)
        path = tmp / f"{stream.db}.jsonl"
        synth.write_records(path, delivered[stream.db])
        valid_batches.append(lake.land([path], declared_format=stream.format_id))
    mutant_landings, by_mutation = fuzz_landings(tmp, delivered)
    fuzz_batches = [lake.land(m.files, m.topic, m.declared_format) for m in mutant_landings]
    lake.declare_vars({"cdc_primary_keys": declared_keys(captures), "cdc_tables": declared_tables(captures)})
    yield
    figures = fuzz_figures(lake, fuzz_batches, by_mutation, lake.last_build_seconds)
    valid_rejects = lake.rows(
        "select topic, reject_stage, reject_reason, count(*) as n from silver.cdc_rejects "
        f"where landing_batch_id in ({', '.join(map(str, valid_batches))}) "
        "group by topic, reject_stage, reject_reason order by n desc")
    gold: dict[str, list[tuple[dict, int]]] = {}
    for r in lake.rows("select table_id, row, row_count from gold.cdc_current_rows"):
        gold.setdefault(r["table_id"], []).append((r["row"], r["row_count"]))
    results = {
        stream.db: [compare_table(tid, without_columns(schema, dict(stream.lost)), rows, gold.get(tid, []))
                    for tid, (schema, rows) in expected_tables(
                stream, as_delivered(captures[stream.source], stream.json_as_text)).items()]
        for stream in STREAMS
    }
    return Harness(lake, captures, results, valid_rejects, figures)


@pytest.fixture(scope="module")
def harness(built: Harness) -> Harness:
    """What land_examples found after the examples lake's build."""
    return built


def declared_keys(captures: dict[str, Capture]) -> dict[str, list[str]]:
    """The key columns of every keyed table, for the streams whose vendor names none."""
    return {table_id(stream, schema): list(schema.pk)
            for stream in STREAMS if stream.declare_keys
            for schema in captures[stream.source].tables() if schema.pk}


def declared_tables(captures: dict[str, Capture]) -> dict[str, dict]:
    """Key and column types of every table, for the streams whose vendor sends no types
    (the types as the vendor sees them: MariaDB's JSON is LONGTEXT)."""
    return {table_id(stream, schema): {"primary_key": list(schema.pk),
                                       "dialect": stream.source.replace("mariadb", "mysql"),
                                       "columns": {c.name: c.type for c in schema.columns}}
            for stream in STREAMS if stream.declare_columns
            for schema in as_delivered(captures[stream.source], False).tables()}


def report(results: list[TableResult], limit: int = 40) -> str:
    """Per table its count of differences, then per column how many and the first one
    (table, key, column, expected, actual)."""
    lines = [f"{r.table}: {len(r.mismatches)} differences ({r.rows_expected} rows expected, "
             f"{r.rows_actual} in gold)" for r in results if not r.exact]
    by_column: dict[tuple[str, str], list] = {}
    for r in results:
        for m in r.mismatches:
            by_column.setdefault((m.table, m.column), []).append(m)
    first = [f"[{len(ms)}x] {ms[0]}" for ms in by_column.values()][:limit]
    return "\n".join([*lines, "differences by column (count, first):", *first])


@pytest.mark.parametrize("stream", STREAMS, ids=lambda s: s.db)
def test_gold_equals_the_database(harness: Harness, stream: Stream):
    """Every table of every stream."""
    results = harness.results[stream.db]
    assert results, f"no tables for {stream.db}"
    assert all(r.exact for r in results), report(results)


def test_every_record_of_every_stream_is_accounted_for(harness: Harness):
    """No stream lost a record: each bronze record is a change, DDL, marker, half,
    reject or duplicate (the dbt test checks the same in the build), and no stream of a
    real database produced a reject."""
    assert harness.valid_rejects == []


def results_table(harness: Harness) -> str:
    """Exact tables per stream, for the closing note and BENCHMARKS-style reports."""
    rows = [f"| {s.db} | {s.format_id} | {sum(r.exact for r in harness.results[s.db])} / "
            f"{len(harness.results[s.db])} |" for s in STREAMS]
    return "\n".join(["| stream | format | exact tables |", "|---|---|---|", *rows])


def test_print_results(harness: Harness, capsys: pytest.CaptureFixture[str], tmp_path: Path):
    """The per-stream result table, printed (pytest -s) and written beside the lake."""
    text = results_table(harness)
    (tmp_path / "realdb_results.md").write_text(text + "\n", encoding="utf-8")
    with capsys.disabled():
        print("\n" + text)
    assert text.count("\n") == len(STREAMS) + 1


def fuzz_report(figures: FuzzFigures) -> str:
    lines = [f"fuzz: {figures.landed} mutated records landed with the 16 valid streams, "
             f"{figures.accounted} accounted for, {figures.changes} still decoded to changes "
             f"(in fuzz tables), build {figures.build_seconds:.0f} s (the whole first build of the examples lake)",
             "by mutation: " + ", ".join(f"{k} {v}" for k, v in sorted(figures.by_mutation.items())),
             "rejects by reason:"]
    return "\n".join(lines + [f"  {n:6d}  {reason}" for reason, n in figures.rejects_by_reason])


def test_fuzz_build_accounts_for_every_mutated_record(harness: Harness):
    """Over 10,000 mutated records landed and built with the valid streams: the build
    succeeded (the fixture), every mutation kind is in it, and every record is in exactly
    one place (a change, DDL, marker, update half, reject or duplicate). The valid tables'
    gold is checked against the databases by test_gold_equals_the_database."""
    figures = harness.fuzz
    assert figures.landed >= 10_000
    assert set(figures.by_mutation) == set(fuzz.MUTATIONS) | {"10 MB string"}
    assert figures.landed == sum(figures.by_mutation.values())
    assert figures.accounted == figures.landed, fuzz_report(figures)


def test_fuzz_rejects_name_their_reason(harness: Harness, capsys: pytest.CaptureFixture[str], tmp_path: Path):
    """Most mutants are rejected, each with a reason (printed with pytest -s)."""
    figures = harness.fuzz
    text = fuzz_report(figures)
    (tmp_path / "fuzz_results.txt").write_text(text + "\n", encoding="utf-8")
    with capsys.disabled():
        print("\n" + text)
    assert all(reason.split(": ", 1)[1].strip() for reason, _ in figures.rejects_by_reason)
    assert sum(n for _, n in figures.rejects_by_reason) > figures.landed // 2
