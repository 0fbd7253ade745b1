"""The examples of the vendor documents (Huawei DRS, Alibaba DTS) decode to the silver
rows they describe, value for value."""

from __future__ import annotations

import base64
import json

import pytest

DRS = "huawei_drs_json"
DTS = "dts_canal_json"


def b64_of_java_bytes(text: str) -> str:
    return base64.b64encode(bytes(int(b) & 255 for b in text.strip("[]").split(",") if b.strip())).decode()


@pytest.fixture(scope="module")
def silver(lake, vectors, tmp_path_factory):
    lake.reset()
    lake.land([vectors / DRS / "mysql_update.ndjson"], topic="doc.drs.mysql", declared_format="drs_json")
    lake.land([vectors / DRS / "gaussdb_primary_standby_update.ndjson"], topic="doc.drs.gauss",
              declared_format="drs_json")
    doc = (vectors / DTS / "vendor_doc.ndjson").read_text(encoding="utf-8").splitlines()
    tmp = tmp_path_factory.mktemp("dts")
    (tmp / "legacy.ndjson").write_text(doc[0] + "\n", encoding="utf-8")
    (tmp / "new.ndjson").write_text(doc[1] + "\n", encoding="utf-8")
    lake.land([tmp / "legacy.ndjson"], topic="doc.dts.legacy", declared_format="canal_json_legacy")
    lake.land([tmp / "new.ndjson"], topic="doc.dts.new", declared_format="canal_json")
    lake.land([vectors / DTS / "vendor_doc_ddl_cleaned.ndjson"], topic="doc.dts.ddl", declared_format="canal_json")
    # the escapes of the DRS document's table 6, and a JSON-C delete (row in data, text timestamp)
    jsonc = {"mysqlType": {"id": "int", "t": "varchar", "ts": "timestamp"}, "id": 9, "es": 1624614713000,
             "ts": 1625058726990, "database": "db", "table": "esc", "type": "DELETE", "isDdl": False, "sql": "",
             "sqlType": {"id": 4, "t": 12, "ts": 93}, "pkNames": ["id"], "old": None,
             "data": [{"id": "1", "t": "<a=&'b>", "ts": "2021-06-25 17:51:53"}]}
    escaped = json.dumps(jsonc).replace("<a=&'b>", "\\u003ca\\u003d\\u0026\\u0027b\\u003e")
    assert "\\u003c" in escaped
    (tmp / "jsonc.ndjson").write_text(escaped + "\n", encoding="utf-8")
    lake.land([tmp / "jsonc.ndjson"], topic="doc.drs.jsonc", declared_format="drs_json_c")
    lake.build()
    return lake


def one(lake, topic: str) -> dict:
    (row,) = lake.rows("select * from silver.cdc_changes where topic = :t", t=topic)
    return row


def test_drs_mysql_update_with_key_change(silver, vectors):
    doc = json.loads((vectors / DRS / "mysql_update.ndjson").read_text(encoding="utf-8"))
    row = one(silver, "doc.drs.mysql")
    assert (row["op"], row["vendor_op"], row["table_id"], row["source_table"]) == ("UPDATE", "UPDATE", "test01.test", "test ")
    assert (row["row_key"], row["before_row_key"], row["pk_columns"]) == ('["104"]', '["103"]', ["id"])
    after, before = row["after"], row["before"]
    assert after["c10"] == "华为云huaweicloud" and after["c9"] == "9874510357"
    assert after["c8"] == "12510357"                       # DOUBLE 1.2510357E7, Java notation, made plain
    assert after["c7"] == "10357.0"                        # FLOAT kept as written
    assert after["c5"] == "2021-06-25T09:51:53.201Z"       # TIMESTAMP: epoch seconds.millis, UTC
    assert after["c4"] == "2021-06-25 17:51:53"            # DATETIME: source wall clock, as written
    assert after["c11"] == "" and after["c2"] == ""        # binary "[]": no bytes
    assert after["c12"] == b64_of_java_bytes(doc["data"][0]["c12"])
    assert base64.b64decode(after["c14"]).startswith(b"jgojgoidsjgojosog93409430")
    assert before["c13"] == "asfiajhfiaf939-0239" and before["id"] == "103"
    assert str(row["event_ts"]) == "2021-06-25 09:51:53" and str(row["capture_ts"]) == "2021-06-30 13:12:06.990000"
    assert [str(x) for x in row["sort_key"]] == ["27677"]
    assert row["column_types"]["c12"] == "varbinary"


def test_drs_gaussdb_update_without_key(silver):
    row = one(silver, "doc.drs.gauss")
    assert (row["table_id"], row["source_schema"], row["pk_columns"]) == ("database01.schema01.table01", "schema01", [])
    assert row["after"]["bytea_column"] == base64.b64encode(b"bytea_data").decode()
    assert row["after"]["boolean_column"] == "false" and row["before"]["boolean_column"] == "true"
    assert row["after"]["jsonb_column"] == '{"key1": "value1", "key2": "value2"}'
    assert row["after"]["timestamp_column"] == "2021-12-16 12:31:49.344365"  # no zone: kept
    assert row["row_key"] == json.dumps(dict(sorted(row["after"].items())), ensure_ascii=False, separators=(",", ":"))


def test_dts_delete_before_and_after_2022_03_20(silver):
    new = one(silver, "doc.dts.new")
    assert new["op"] == "DELETE" and new["before"] == {"id": "500000287", "shipping_type": None}
    assert new["after"] is None and new["row_key"] == '["500000287"]'
    # the document's old-instance DELETE carries the row in `old` but without its key column:
    # no row can be identified, so it is rejected with that reason, not dropped
    (reject,) = silver.rows("select reject_reason, vendor_format from silver.cdc_rejects where topic = 'doc.dts.legacy'")
    assert reject["vendor_format"] == "canal_json_legacy"
    assert reject["reject_reason"].startswith("a row lacks primary key column(s) id")


def test_dts_ddl_is_kept_even_when_it_cannot_be_parsed(silver):
    (ddl,) = silver.rows("select table_id, vendor_op, ddl_text, ddl_action, ddl_parse_error "
                         "from silver.cdc_ddl_events where topic = 'doc.dts.ddl'")
    assert (ddl["table_id"], ddl["vendor_op"], ddl["ddl_text"]) == ("dbname.tablename", "DDL", "eg:createxxx")
    assert ddl["ddl_action"] == "UNKNOWN" and ddl["ddl_parse_error"]


def test_drs_json_c_delete_and_escaped_characters(silver):
    row = one(silver, "doc.drs.jsonc")
    assert row["op"] == "DELETE" and row["row_key"] == '["1"]'
    assert row["before"] == {"id": "1", "t": "<a=&'b>", "ts": "2021-06-25 17:51:53"}
