"""Bad input ends in silver.cdc_rejects with a readable reason, the run goes on, and
every bronze record is accounted for exactly once. One step of the examples lake
(tests/examples/conftest.py): the accounting holds for every module's records."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

GOOD = {"data": [{"id": "1", "v": "a"}], "database": "db", "table": "t", "type": "INSERT",
        "isDdl": False, "es": 1700000000000, "ts": 1700000000100, "pkNames": ["id"],
        "mysqlType": {"id": "int", "v": "varchar(8)"}, "old": None, "sql": "", "id": 1}

# (value, reason fragment) of records declared canal_json
BAD_CANAL = [
    ('{"data": [', "value is not valid JSON"),
    ('[{"type": "INSERT"}]', "value is a JSON array, not an object"),
    (json.dumps({**GOOD, "table": None}), '"table" is missing or empty'),
    (json.dumps({**GOOD, "data": {"id": "1"}}), '"data" is not an array of row objects'),
    (json.dumps({**GOOD, "data": ["x"]}), '"data" is not an array of row objects'),
    (json.dumps({**GOOD, "type": "UPSERT"}), 'unknown "type" value "UPSERT"'),
    (json.dumps({k: v for k, v in GOOD.items() if k != "type"}), 'no "type" field'),
    (json.dumps({**GOOD, "data": []}), "INSERT message without rows"),
    (json.dumps({**GOOD, "type": "UPDATE", "old": [{"v": "b"}, {"v": "c"}]}),
     '"old" has 2 entries for 1 rows in "data"'),
    (json.dumps({**GOOD, "data": [{"v": "no key"}]}), "a row lacks primary key column(s) id"),
    ("", "empty message value"),
    (None, "empty message value"),
    (json.dumps({**GOOD, "data": [{"id": "2", "v": "x" * (17 * 1024 * 1024)}]}),
     "bytes, over the limit of 16777216"),
    # "data": null is no rows, as [] is (it was accepted with a NULL row_key, and the
    # not-null test on history then stopped gold for every table)
    (json.dumps({**GOOD, "data": None}), "INSERT message without rows"),
    (json.dumps({**GOOD, "type": "DELETE", "data": None}), "DELETE message without rows"),
    # nanoseconds where milliseconds belong (DATETIME_OVERFLOW failed the whole build)
    (json.dumps({**GOOD, "es": 1700000000000000000}),
     '"es" 1700000000000000000 is not a time in milliseconds since 1970 between the years 0001 and 9999'),
]

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _edited(line: str, edit) -> str:
    doc = json.loads(line)
    edit(doc)
    return json.dumps(doc)


def _cdl(edit) -> str:
    return _edited((SAMPLES / "cdl_json_v1.ndjson").read_text(encoding="utf-8").splitlines()[0], edit)


def _mongo(edit) -> str:
    return _edited((SAMPLES / "drs_mongo.ndjson").read_text(encoding="utf-8").splitlines()[0], edit)


# (declared format, value, reason fragment): one record of each format whose epoch
# field is out of Spark's range, each a reject of its own
ABSURD_TIMES = [
    ("debezium_json", json.dumps({"op": "c", "after": {"id": 1}, "ts_ms": 1700000000000,
                                   "source": {"db": "db", "table": "t2", "ts_ms": -10 ** 17}}),
     '"source.ts_ms" -100000000000000000 is not a time in milliseconds'),
    ("cdl_json", _cdl(lambda d: d["payload"].update(TIMESTAMP=9 * 10 ** 18)),
     "payload.TIMESTAMP 9000000000000000000 is not a time in milliseconds"),
    ("drs_mongo_json", _mongo(lambda d: d.update(clusterTime="999999999999999999:1")),
     '"clusterTime" 999999999999999999 is not a time in seconds'),
]


def _canal(offset: int, db: str, table: str, types: dict[str, str] | None = None, v: str = "a") -> str:
    return _record(offset, json.dumps({**GOOD, "database": db, "table": table, "id": offset,
                                       "data": [{"id": "1", "v": v}],
                                       "mysqlType": types or GOOD["mysqlType"]}), topic="names.canal")


# (database, table) of source tables that are distinct and must stay so, with names no
# folder can have
NAMES = [("cs", "Users"), ("cs", "users"), ("a", "b.c"), ("a.b", "c"), ("odd", "nul\u0000name"),
         ("odd", "x" * 300), ("odd", "../../etc/passwd"), ("odd", "`tick`")]
# column types that crashed the type UDF or made invalid SQL: type -> Spark type of the column
DECIMALS = {"decimal(99999999999999999999,2)": "string", "decimal(38,-3)": "string",
            "decimal(0,0)": "string", "decimal(10,-2)": "decimal(12,0)", "decimal(20,4)": "decimal(20,4)"}


def _record(offset: int, value: str | None, topic: str = "bad.canal") -> str:
    return json.dumps({"topic": topic, "partition": 0, "offset": offset, "timestamp": 1700000000000,
                       "key": None, "value": value})


def land_examples(lake, tmp: Path) -> Iterator[None]:
    """One batch (tests/examples/conftest.py); the landing batch ids are the result."""
    batches = []
    canal = tmp / "canal.jsonl"
    lines = [_record(i, v) for i, (v, _) in enumerate(BAD_CANAL)]
    lines.append(_record(len(BAD_CANAL), json.dumps(GOOD)))
    lines.append(_record(len(BAD_CANAL), json.dumps(GOOD)))  # the same record re-read
    lines.append("this line is not a Kafka record")
    canal.write_text("\n".join(lines) + "\n", encoding="utf-8")
    batches.append(lake.land([canal], declared_format="canal_json"))

    routed = tmp / "routed.jsonl"
    routed.write_text("\n".join([
        _record(0, json.dumps(GOOD), topic="unrouted.topic"),           # Canal shape, no format
        _record(1, '{"hello": "world"}', topic="unrouted.topic"),        # no rule matches
        _record(2, json.dumps({"op": "c", "after": {"id": 1}, "source": {}}), topic="unrouted.topic"),
        _record(3, json.dumps({"coll": "c", "recordType": "insert", "op": "INSERT"}), topic="unrouted.topic"),
    ]) + "\n", encoding="utf-8")
    batches.append(lake.land([routed]))

    for n, declared in enumerate([None, "dts_avro"]):
        base64_file = tmp / f"base64_{n}.jsonl"
        base64_file.write_text(json.dumps({"topic": "bad.avro", "partition": 0, "offset": n, "timestamp": 1,
                                           "value_base64": "====" * (n + 1)}) + "\n", encoding="utf-8")
        batches.append(lake.land([base64_file], declared_format=declared))
    for n, (format_id, value, _) in enumerate(ABSURD_TIMES):
        path = tmp / f"time_{n}.jsonl"
        path.write_text(_record(0, value, topic=f"bad.time.{format_id}") + "\n", encoding="utf-8")
        batches.append(lake.land([path], declared_format=format_id))
    names = tmp / "names.jsonl"
    lines = [_canal(n, db, table, v=f"{db}/{table}") for n, (db, table) in enumerate(NAMES)]
    lines += [_canal(100 + n, "types", f"t{n}", {"id": "int", "v": vendor_type}, v="1200")
              for n, vendor_type in enumerate(DECIMALS)]
    names.write_text("\n".join(lines) + "\n", encoding="utf-8")
    batches.append(lake.land([names], declared_format="canal_json"))
    yield
    return batches


@pytest.fixture(scope="module")
def landed(built: list[int]) -> str:
    """The condition on landing_batch_id that selects this module's records."""
    return f"landing_batch_id in ({', '.join(map(str, built))})"


def _rejects(lake, landed: str) -> list[dict]:
    return lake.rows("select topic, kafka_offset, reject_stage, reject_reason, vendor_format, "
                     f"format_source from silver.cdc_rejects where {landed} "
                     "order by topic, kafka_offset, source_line")


def test_each_malformed_record_is_rejected_with_its_reason(lake, landed):
    by_offset = {r["kafka_offset"]: r for r in _rejects(lake, landed) if r["topic"] == "bad.canal"}
    for offset, (_, reason) in enumerate(BAD_CANAL):
        assert offset in by_offset, f"record {offset} ({reason}) was not rejected"
        assert reason in by_offset[offset]["reject_reason"], by_offset[offset]
    unreadable = [r for r in _rejects(lake, landed) if r["reject_stage"] == "land" and r["topic"] != "bad.avro"]
    assert [r["reject_reason"] for r in unreadable] == ["line is not valid JSON"]


def test_good_record_still_decodes_once(lake, landed):
    rows = lake.rows("select table_id, row_key, after from silver.cdc_changes where topic = 'bad.canal'")
    assert rows == [{"table_id": "db.t", "row_key": '["1"]', "after": {"id": "1", "v": "a"}}]
    assert lake.rows(f"select count(*) as n from silver.stg_cdc__messages where is_duplicate and {landed}"
                     )[0]["n"] == 1


def test_routing_rejects_name_the_way_out(lake, landed):
    reasons = [r["reject_reason"] for r in _rejects(lake, landed) if r["topic"] == "unrouted.topic"]
    assert len(reasons) == 4
    assert "cannot be told apart by shape" in reasons[0] and "--format" in reasons[0]
    assert "matches no seeds/topic_formats.csv row" in reasons[1]
    # detected as Debezium by shape, then refused by its decoder
    assert reasons[2] == '"source.table" is missing or empty'
    # detected as DRS JSON for DDS by shape, then refused by its decoder
    assert reasons[3] == 'INSERT without "value"'


def test_every_bronze_record_is_accounted_for_exactly_once(lake, landed):
    bronze = lake.rows(f"select count(*) as n from bronze.kafka_messages where {landed}")[0]["n"]
    assert bronze == len(BAD_CANAL) + 3 + 4 + 2 + len(ABSURD_TIMES) + len(NAMES) + len(DECIMALS)
    # this module's records: rejects, changes, DDL or duplicates (no heartbeats, no halves)
    assert lake.rows(f"""
        select count(*) as n from (
            select landing_batch_id, source_file, source_line from bronze.kafka_messages where {landed}
            except
            select landing_batch_id, source_file, source_line from silver.cdc_rejects
            except
            select landing_batch_id, source_file, source_line from silver.cdc_changes
            except
            select landing_batch_id, source_file, source_line from silver.cdc_ddl_events
            except
            select landing_batch_id, source_file, source_line from silver.stg_cdc__messages
            where is_duplicate)
    """)[0]["n"] == 0
    # every module's records, each in exactly one place: the dbt data test, which every
    # `cdc build` runs
    assert lake.dbt("test", "--select", "assert_every_bronze_record_accounted_for")


def test_accounting_test_fails_when_a_record_goes_missing(lake, landed):
    """Copies of this module's unreadable lines in a landing batch no build has seen: the
    data test names them missing. The batch is dropped after, the lake is shared."""
    unseen = 10 ** 9
    lake.spark.sql(f"""
        insert into bronze.kafka_messages
        select topic, kafka_partition, kafka_offset, kafka_ts, message_key, message_value,
               value_encoding, headers, declared_format, source_file, source_line, landed_at,
               land_error, {unseen}
        from bronze.kafka_messages where land_error is not null and {landed}
    """)
    try:
        assert not lake.dbt("test", "--select", "assert_every_bronze_record_accounted_for")
    finally:
        lake.spark.sql(f"alter table bronze.kafka_messages drop partition (landing_batch_id = {unseen})")
    assert lake.dbt("test", "--select", "assert_every_bronze_record_accounted_for")


def test_invalid_base64_is_a_reject_not_a_failed_build(lake, landed):
    """`value_base64: "===="`, with and without a declared format: unbase64() in format
    detection failed stg_cdc__messages for every record."""
    rows = lake.rows("select reject_stage, reject_reason from silver.cdc_rejects where topic = 'bad.avro'")
    assert rows == [{"reject_stage": "land", "reject_reason": "value_base64 is not valid base64"}] * 2


def test_epoch_times_out_of_range_are_rejects(lake, landed):
    """An epoch field Spark cannot turn into a time (0001-9999) rejects its record: the
    conversions failed the whole build (DATETIME_OVERFLOW)."""
    rows = {r["topic"]: r["reject_reason"] for r in lake.rows(
        "select topic, reject_reason from silver.cdc_rejects where topic like 'bad.time.%'")}
    for format_id, _, reason in ABSURD_TIMES:
        assert reason in rows.get(f"bad.time.{format_id}", ""), (format_id, rows)


def test_hostile_names_are_data_not_folder_names(lake, landed):
    """Table names with NUL, '/', 300 characters: no table is partitioned by a source name
    (the per-table folders could not be created, and cdc_table_columns, cdc_row_history and
    cdc_sync_status failed for every table)."""
    from cdclake import paths

    live = {r["table_id"]: r["row"]["v"] for r in lake.rows(
        "select table_id, row from gold.cdc_current_rows where table_id like 'odd.%'")}
    assert sorted(live.values()) == sorted(f"{db}/{table}" for db, table in NAMES if db == "odd")
    assert "odd.nul\u0000name" in live and f"odd.{'x' * 300}" in live
    # the schema history, gold and the sync status have no folder but Delta's log (_delta_log)
    for table in ("silver.db/cdc_table_columns", "gold.db/cdc_current_rows", "gold.db/cdc_row_history",
                  "gold.db/cdc_sync_status"):
        assert not [p for p in (paths.warehouse_dir() / table).iterdir()
                    if p.is_dir() and not p.name.startswith("_")], table
    assert (lake.rows("select count(*) as n from gold.cdc_sync_status where topic = 'names.canal'")[0]["n"]
            == len(NAMES) + len(DECIMALS))


def test_distinct_source_tables_keep_distinct_ids(lake, landed):
    """`Users` and `users`, database a + table b.c and database a.b + table c were one
    table each (lower-cased, dot-joined) and their rows mixed."""
    ids = {r["table_id"]: r["row"]["v"] for r in lake.rows(
        "select table_id, row from gold.cdc_current_rows where table_id rlike '^(cs|a|`a.b`)[.]' and table_id in "
        "(select table_id from gold.cdc_sync_status where topic = 'names.canal')")}
    assert ids == {"cs.Users": "cs/Users", "cs.users": "cs/users", "a.`b.c`": "a/b.c", "`a.b`.c": "a.b/c"}


def test_decimal_types_of_any_precision_and_scale(lake, landed):
    """decimal(99999999999999999999,2) crashed the type UDF (OverflowError);
    decimal(38,-3) and decimal(0,0) made invalid SQL in gold.cdc_cast_failures, which all
    tables share, and in the typed model. Now: text when no Spark decimal holds the
    values exactly, a negative scale as an integer decimal of p - s digits."""
    types = {r["table_id"]: r["table_type"] for r in lake.rows(
        "select table_id, table_type from silver.cdc_table_columns where table_id like 'types.%' "
        "and column_name = 'v' and is_current_type")}
    assert types == {f"types.t{n}": spark_type for n, spark_type in enumerate(DECIMALS.values())}
    failures = {r["table_id"]: r["cast_failures"] for r in lake.rows(
        "select table_id, cast_failures from gold.cdc_cast_failures where table_id like 'types.%' "
        "and column_name = 'v'")}
    assert failures == {f"types.t{n}": 0 for n in range(len(DECIMALS))}
    typed = lake.compile_many({f"t{n}": f"cdc_table('types.t{n}')" for n in range(len(DECIMALS))})
    for n in range(len(DECIMALS)):
        assert len(lake.rows(typed[f"t{n}"])) == 1
