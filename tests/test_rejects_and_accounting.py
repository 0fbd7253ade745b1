"""Bad input ends in silver.cdc_rejects with a readable reason, the run goes on, and
every bronze record is accounted for exactly once."""

from __future__ import annotations

import json
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
]


def _record(offset: int, value: str | None, topic: str = "bad.canal") -> str:
    return json.dumps({"topic": topic, "partition": 0, "offset": offset, "timestamp": 1700000000000,
                       "key": None, "value": value})


@pytest.fixture(scope="module")
def landed(lake, tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("bad")
    lake.reset()
    canal = tmp / "canal.jsonl"
    lines = [_record(i, v) for i, (v, _) in enumerate(BAD_CANAL)]
    lines.append(_record(len(BAD_CANAL), json.dumps(GOOD)))
    lines.append(_record(len(BAD_CANAL), json.dumps(GOOD)))  # the same record re-read
    lines.append("this line is not a Kafka record")
    canal.write_text("\n".join(lines) + "\n", encoding="utf-8")
    lake.land([canal], declared_format="canal_json")

    routed = tmp / "routed.jsonl"
    routed.write_text("\n".join([
        _record(0, json.dumps(GOOD), topic="unrouted.topic"),           # Canal shape, no format
        _record(1, '{"hello": "world"}', topic="unrouted.topic"),        # no rule matches
        _record(2, json.dumps({"op": "c", "after": {"id": 1}, "source": {}}), topic="unrouted.topic"),
        _record(3, json.dumps({"coll": "c", "recordType": "insert", "op": "INSERT"}), topic="unrouted.topic"),
    ]) + "\n", encoding="utf-8")
    lake.land([routed])
    lake.build()
    return canal


def _rejects(lake) -> list[dict]:
    return lake.rows("select topic, kafka_offset, reject_stage, reject_reason, vendor_format, "
                     "format_source from silver.cdc_rejects order by topic, kafka_offset, source_line")


def test_each_malformed_record_is_rejected_with_its_reason(lake, landed):
    by_offset = {r["kafka_offset"]: r for r in _rejects(lake) if r["topic"] == "bad.canal"}
    for offset, (_, reason) in enumerate(BAD_CANAL):
        assert offset in by_offset, f"record {offset} ({reason}) was not rejected"
        assert reason in by_offset[offset]["reject_reason"], by_offset[offset]
    unreadable = [r for r in _rejects(lake) if r["reject_stage"] == "land"]
    assert [r["reject_reason"] for r in unreadable] == ["line is not valid JSON"]


def test_good_record_still_decodes_once(lake, landed):
    rows = lake.rows("select table_id, row_key, after from silver.cdc_changes")
    assert rows == [{"table_id": "db.t", "row_key": '["1"]', "after": {"id": "1", "v": "a"}}]
    assert lake.rows("select count(*) as n from silver.int_cdc__messages where is_duplicate")[0]["n"] == 1


def test_routing_rejects_name_the_way_out(lake, landed):
    reasons = [r["reject_reason"] for r in _rejects(lake) if r["topic"] == "unrouted.topic"]
    assert len(reasons) == 4
    assert "cannot be told apart by shape" in reasons[0] and "--format" in reasons[0]
    assert "matches no seeds/topic_formats.csv row" in reasons[1]
    # detected as Debezium by shape, then refused by its decoder
    assert reasons[2] == '"source.table" is missing or empty'
    # detected as DRS JSON for DDS by shape, then refused by its decoder
    assert reasons[3] == 'INSERT without "value"'


def test_every_bronze_record_is_accounted_for_exactly_once(lake, landed):
    bronze = lake.rows("select count(*) as n from bronze.kafka_messages")[0]["n"]
    assert bronze == len(BAD_CANAL) + 3 + 4
    assert lake.rows("""
        select count(*) as n from (
            select landing_batch_id, source_file, source_line from bronze.kafka_messages
            except
            select landing_batch_id, source_file, source_line from silver.cdc_rejects
            except
            select landing_batch_id, source_file, source_line from silver.cdc_changes
            except
            select landing_batch_id, source_file, source_line from silver.int_cdc__messages
            where is_duplicate)
    """)[0]["n"] == 0
    # the same check as a dbt data test, which every `cdc build` runs
    from cdclake.dbt_invoke import run_dbt

    assert run_dbt(["test", "--quiet", "--select", "assert_every_bronze_record_accounted_for"])


def test_accounting_test_fails_when_a_record_goes_missing(lake, landed):
    from cdclake.dbt_invoke import run_dbt

    lake.spark.sql("""
        insert into bronze.kafka_messages
        select topic, kafka_partition, kafka_offset + 1000, kafka_ts, message_key, message_value,
               value_encoding, headers, declared_format, source_file, source_line + 1000, landed_at,
               land_error, landing_batch_id
        from bronze.kafka_messages where land_error is not null
    """)
    assert not run_dbt(["test", "--quiet", "--select", "assert_every_bronze_record_accounted_for"])
