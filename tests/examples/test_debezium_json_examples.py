"""Every Debezium JSON example (vendor docs, Huawei CDL v2, Flink/Paimon samples) decodes to
the silver rows it describes; the Flink Debezium test files fold in gold to the final state
DebeziumJsonSerDeSchemaTest expects (the replica-identity file, which Flink refuses, folds
too once the records carry their Kafka key); a rendered synth stream, with and without the
schema envelope, folds to synth.fold. Hand-built messages cover what the samples lack:
tombstones, heartbeats, TOAST placeholders, key-only before images, Connect decimals of any
precision, every temporal type (session time zone UTC), and malformed input of each shape.

Every case lands under its own topic in the examples lake (tests/examples/conftest.py);
files whose tables share names with another case land with `source.db` renamed.
"""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal, getcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import synth
from renderers import debezium_json

if TYPE_CHECKING:
    from cdclake.lake import Lake

getcontext().prec = 200
Image = dict[str, str | None]
VECTORS = Path(__file__).resolve().parents[1] / "vectors"
FLINK_DIR = VECTORS / "peer-test-suites" / "flink"
FLINK = json.loads((FLINK_DIR / "expected.json").read_text(encoding="utf-8"))
DBZ = VECTORS / "debezium_json"

PEER_FILES = {
    "debezium-data-schema-include.txt": ("peer_mysql_incl", '"db":"inventory"'),
    "debezium-data-schema-exclude.DERIVED.txt": ("peer_mysql_excl", '"db":"inventory"'),
    "debezium-postgres-data-schema-include.txt": ("peer_pg_incl", '"db":"postgres"'),
    "debezium-postgres-data-schema-exclude.txt": ("peer_pg_excl", '"db":"postgres"'),
}


# ---------------------------------------------------------------------------- helpers


def record(topic: str, offset: int, value: str | None, key: Any = None, partition: int = 0) -> str:
    key_text = key if key is None or isinstance(key, str) else json.dumps(key)
    return json.dumps({"topic": topic, "partition": partition, "offset": offset, "timestamp": 1_700_000_000_000,
                       "key": key_text, "value": value}, ensure_ascii=False)


def lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def b64_decimal(text: str, scale: int) -> str:
    unscaled = int(Decimal(text).scaleb(scale))
    return base64.b64encode(unscaled.to_bytes(max(1, (unscaled.bit_length() + 8) // 8), "big", signed=True)).decode()


def field(name: str, ctype: str, semantic: str | None = None, **params: str) -> dict[str, Any]:
    out: dict[str, Any] = {"type": ctype, "optional": True, "field": name}
    if semantic:
        out["name"] = semantic
    if params:
        out["parameters"] = params
    return out


def envelope_schema(columns: list[dict[str, Any]]) -> dict[str, Any]:
    row = {"type": "struct", "optional": True, "fields": columns}
    return {"type": "struct", "fields": [{**row, "field": "before"}, {**row, "field": "after"},
                                         {"type": "struct", "fields": [], "field": "source"},
                                         {"type": "string", "field": "op"}, {"type": "int64", "field": "ts_ms"}]}


def mysql_source(table: str, pos: int, db: str = "hand", row: int = 0) -> dict[str, Any]:
    return {"version": "2.7.0.Final", "connector": "mysql", "name": "hb", "ts_ms": 1_700_000_000_000 + pos,
            "snapshot": "false", "db": db, "table": table, "server_id": 1, "gtid": None,
            "file": "mysql-bin.000007", "pos": pos, "row": row}


def pg_source(table: str, lsn: int, db: str = "hand") -> dict[str, Any]:
    return {"version": "2.7.0.Final", "connector": "postgresql", "name": "pg", "ts_ms": 1_700_000_000_000,
            "snapshot": "false", "db": db, "schema": "public", "table": table, "txId": 77, "lsn": lsn}


def change(op: str, before: Any, after: Any, source: dict[str, Any], schema: Any = None) -> str:
    payload = {"before": before, "after": after, "source": source, "op": op, "ts_ms": 1_700_000_009_000}
    return json.dumps({"schema": schema, "payload": payload} if schema else payload, ensure_ascii=False)


# ---------------------------------------------------------------------------- hand-built cases

WIDE = "12345678901234567890123456789012345.123456789012345678901234567890"  # DECIMAL(65,30)
TYPES_COLUMNS = [
    field("id", "int32"),
    field("small_dec", "bytes", "org.apache.kafka.connect.data.Decimal", scale="2"),
    field("neg_dec", "bytes", "org.apache.kafka.connect.data.Decimal", scale="3"),
    field("wide_dec", "bytes", "org.apache.kafka.connect.data.Decimal", scale="30"),
    field("var_dec", "struct", "io.debezium.data.VariableScaleDecimal"),
    field("var_text", "struct", "io.debezium.data.VariableScaleDecimal"),
    field("d", "int32", "io.debezium.time.Date"),
    field("cd", "int32", "org.apache.kafka.connect.data.Date"),
    field("t_ms", "int32", "io.debezium.time.Time"),
    field("t_us", "int64", "io.debezium.time.MicroTime"),
    field("t_ns", "int64", "io.debezium.time.NanoTime"),
    field("long_time", "int64", "io.debezium.time.MicroTime"),
    field("ts_ms", "int64", "io.debezium.time.Timestamp"),
    field("ts_us", "int64", "io.debezium.time.MicroTimestamp"),
    field("ts_ns", "int64", "io.debezium.time.NanoTimestamp"),
    field("old_ts", "int64", "io.debezium.time.MicroTimestamp"),
    field("connect_ts", "int64", "org.apache.kafka.connect.data.Timestamp"),
    field("zoned", "string", "io.debezium.time.ZonedTimestamp"),
    field("yr", "int32", "io.debezium.time.Year"),
    field("js", "string", "io.debezium.data.Json"),
    field("en", "string", "io.debezium.data.Enum", allowed="a,b"),
    field("bits", "bytes", "io.debezium.data.Bits", length="16"),
    field("bin", "bytes"),
    field("dbl", "double"),
    field("txt", "string"),
    field("nul", "string"),
]
TYPES_AFTER = {
    "id": 1, "small_dec": b64_decimal("123.45", 2), "neg_dec": b64_decimal("-0.005", 3),
    "wide_dec": b64_decimal(WIDE, 30), "var_dec": {"scale": 4, "value": b64_decimal("-98765.4321", 4)},
    # not {scale, value} (base64 text that is no JSON): kept as given, not read as the bytes
    "var_text": "AQI=",
    "d": 19439, "cd": -1, "t_ms": 36_803_120, "t_us": 36_803_000_000, "t_ns": 36_803_000_000_001,
    "long_time": 3_020_399_000_000, "ts_ms": 1_679_581_805_120, "ts_us": 1_679_581_805_123_456,
    "ts_ns": 1_679_581_805_123_456_789, "old_ts": -1_500_000, "connect_ts": 1_679_581_805_100,
    "zoned": "2023-03-23T22:00:10.123456Z", "yr": 2023, "js": '{"b": [1, 2], "a": "x"}', "en": "b",
    "bits": "xwc=", "bin": "AAEC/w==", "dbl": 1e-05, "txt": "华为云 \"q\" 🚀", "nul": None,
}
TYPES_EXPECTED: Image = {
    "id": "1", "small_dec": "123.45", "neg_dec": "-0.005", "wide_dec": WIDE, "var_dec": "-98765.4321",
    "var_text": "AQI=",
    "d": "2023-03-23", "cd": "1969-12-31", "t_ms": "10:13:23.12", "t_us": "10:13:23", "t_ns": "10:13:23.000000001",
    "long_time": "838:59:59", "ts_ms": "2023-03-23T14:30:05.12", "ts_us": "2023-03-23T14:30:05.123456",
    "ts_ns": "2023-03-23T14:30:05.123456789", "old_ts": "1969-12-31T23:59:58.5",
    "connect_ts": "2023-03-23T14:30:05.1Z", "zoned": "2023-03-23T22:00:10.123456Z", "yr": "2023",
    "js": '{"b":[1,2],"a":"x"}', "en": "b", "bits": "1991", "bin": "AAEC/w==", "dbl": "0.00001",
    "txt": "华为云 \"q\" 🚀", "nul": None,
}

KEY_SCHEMA = {"type": "struct", "fields": [{"type": "int32", "optional": False, "field": "id"}], "optional": False}


def hand_built(topic: str) -> list[str]:
    """(offset order) the hand-built messages of the `hand` database, one topic."""
    c = "customers"
    msgs: list[tuple[Any, str | None]] = [
        # 0 all value types, with schema; key with its own schema envelope
        ({"schema": KEY_SCHEMA, "payload": {"id": 1}},
         change("c", None, TYPES_AFTER, mysql_source("types", 10), envelope_schema(TYPES_COLUMNS))),
        # 1 PostgreSQL: insert, 2 update with a TOASTed column and a key-only before
        ({"id": 5}, change("c", None, {"id": 5, "name": "Ann", "doc": "long text"}, pg_source(c, 100))),
        ({"id": 5}, change("u", {"id": 5}, {"id": 5, "name": "Ann B", "doc": "__debezium_unavailable_value"},
                           pg_source(c, 200))),
        # 3 insert 6, 4 delete 6 with before null (REPLICA IDENTITY NOTHING): row from the key, 5 tombstone
        ({"id": 6}, change("c", None, {"id": 6, "name": "Bob", "doc": None}, pg_source(c, 300))),
        ({"id": 6}, change("d", None, None, pg_source(c, 400))),
        ({"id": 6}, None),
        # 6 heartbeat, 7 logical decoding message
        ({"serverName": "pg"}, '{"ts_ms":1700000001234}'),
        (None, json.dumps({"op": "m", "ts_ms": 1_700_000_000_500, "source": pg_source("", 450),
                           "message": {"prefix": "audit", "content": "aGk="}})),
        # 8 snapshot as `c` with source.snapshot=last
        ({"id": 7}, change("c", None, {"id": 7, "name": "Cy", "doc": "d"}, {**pg_source(c, 50), "snapshot": "last"})),
        # malformed: 9 not JSON, 10 array, 11 unknown op, 12 u without after, 13 d without before nor key,
        # 14 u without before of a table without key, 15 no op at all
        (None, '{"op":"c",'),
        (None, "[1,2]"),
        (None, change("x", None, {"id": 1}, pg_source(c, 500))),
        ({"id": 5}, change("u", {"id": 5}, None, pg_source(c, 600))),
        (None, change("d", None, None, pg_source("nokey", 700))),
        (None, change("u", None, {"a": 1}, pg_source("nokey", 800))),
        (None, '{"hello":"world","n":1}'),
        # 16 update of 5 with a full before; name NULL
        ({"id": 5}, change("u", {"id": 5, "name": "Ann B", "doc": "long text"}, {"id": 5, "name": None, "doc": "x"},
                           pg_source(c, 900))),
    ]
    return [record(topic, i, value, key) for i, (key, value) in enumerate(msgs)]


# ---------------------------------------------------------------------------- the lake


@dataclass
class Built:
    lake: Lake
    stream: synth.Stream
    stream_schemas: synth.Stream


def _rename(text: str, old: str, new_db: str) -> str:
    renamed, count = text.replace(old, f'"db":"{new_db}"'), text.count(old)
    assert count >= 1, text[:80]
    return renamed


def land_examples(lake: Lake, tmp: Path) -> Iterator[None]:
    """One batch (tests/examples/conftest.py)."""
    declared: list[str] = []
    by_shape: list[str] = []
    for i, line in enumerate(lines(DBZ / "debezium_docs_mysql_examples.ndjson")):
        declared.append(record("ex.dbz.docs", i, line))
    declared.append(record("ex.dbz.flink-first", 0,
                           lines(DBZ / "flink_debezium_mysql_schema_included_first.ndjson")[0]))
    for i, line in enumerate(lines(DBZ / "flink_debezium_postgres_replica_identity_default.ndjson")):
        by_shape.append(record("ex.dbz.pg-replica-default", i, line))
    # (Paimon's Canal and DataWorks samples use the same database names: the Debezium ones are renamed)
    declared.append(record("ex.dbz.alltype", 0, _rename(
        lines(DBZ / "paimon_flinkcdc_mysql_alltype_schema_included.json")[0], '"db":"paimon_sync_table"',
        "dbz_paimon_sync_table")))
    for i, line in enumerate(lines(DBZ / "paimon_flinkcdc_schema_excluded.ndjson")):
        declared.append(record("ex.dbz.paimon-excluded", i, line))
    mongo = lines(DBZ / "paimon_debezium_mongodb_update_key_value.txt")
    for i in range(0, len(mongo), 2):
        value = _rename(mongo[i + 1], '"db": "bigdata_test"', "dbz_bigdata_test")
        declared.append(record("ex.dbz.mongo", i // 2, value, mongo[i]))
    by_shape.append(record("ex.cdl.v2", 0, lines(VECTORS / "huawei_cdl" / "cdl_debezium_v2_insert.ndjson")[0]))
    declared.extend(hand_built("ex.dbz.hand"))
    # a tombstone routed by shape alone (empty value, JSON-object key)
    by_shape.append(record("ex.dbz.shape-tombstone", 0, None, {"id": 6}))
    # the Flink test files (no Kafka key: tables without key, multiset semantics)
    for name, (db, old) in PEER_FILES.items():
        for i, line in enumerate(lines(FLINK_DIR / name)):
            declared.append(record(f"peer.flink.{name}", i, _rename(line, old, db)))
    # the replica-identity file as Flink has it (no key), and with the Kafka key Debezium sends
    for i, line in enumerate(lines(FLINK_DIR / "debezium-postgres-data-replica-identity.txt")):
        declared.append(record("peer.flink.replica-identity", i, _rename(line, '"db":"postgres"', "peer_ri_nokey")))
        payload = json.loads(line)
        row = payload.get("after") or payload.get("before") or {"id": 111}
        declared.append(record("peer.flink.replica-identity-keyed", i,
                               _rename(line, '"db":"postgres"', "peer_ri_keyed"), {"id": row["id"]}))
    stream = synth.generate("synth_dbz", n_changes=300)
    stream_schemas = synth.generate("synth_dbz_schema", n_changes=300, seed=8)
    synth.write_records(tmp / "synth.jsonl", debezium_json.render(stream, "synth.dbz")
                        + debezium_json.render(stream_schemas, "synth.dbz.schema", schemas=True))
    (tmp / "declared.jsonl").write_text("\n".join(declared) + "\n", encoding="utf-8")
    (tmp / "shape.jsonl").write_text("\n".join(by_shape) + "\n", encoding="utf-8")
    lake.land([tmp / "declared.jsonl", tmp / "synth.jsonl"], declared_format="debezium_json")
    lake.land([tmp / "shape.jsonl"])
    yield
    return Built(lake, stream, stream_schemas)


def changes(lake: Lake, topic: str) -> list[dict[str, Any]]:
    return lake.rows(
        """select kafka_offset, op, vendor_op, table_id, pk_columns, row_key, before_row_key, before, after,
                  before_is_partial, after_is_partial, column_types, tx_id,
                  date_format(event_ts, "yyyy-MM-dd'T'HH:mm:ss.SSS") as event_ts,
                  date_format(capture_ts, "yyyy-MM-dd'T'HH:mm:ss.SSS") as capture_ts,
                  transform(sort_key, k -> cast(k as string)) as sort_key
           from silver.cdc_changes where topic = :topic order by kafka_offset""", topic=topic)


def rejects(lake: Lake, topic: str) -> dict[int, str]:
    return {r["kafka_offset"]: r["reject_reason"] for r in lake.rows(
        "select kafka_offset, reject_reason from silver.cdc_rejects where topic = :topic", topic=topic)}


def markers(lake: Lake, topic: str) -> list[dict[str, Any]]:
    return lake.rows(
        """select kafka_offset, marker_kind, vendor_op, tx_id, detail,
                  date_format(event_ts, "yyyy-MM-dd'T'HH:mm:ss.SSS") as event_ts
           from silver.cdc_heartbeats where topic = :topic order by kafka_offset""", topic=topic)


def gold(lake: Lake, table_id: str) -> list[dict[str, Any]]:
    return lake.rows("select row_key, row, row_count from gold.cdc_current_rows where table_id = :t order by row_key",
                     t=table_id)


# ---------------------------------------------------------------------------- vendor and vector examples


def test_debezium_docs_examples(built):
    """Debezium's MySQL documentation: schema change -> DDL; BEGIN/END -> markers; the
    transaction-enriched create has `source: {}` (no table) -> reject; update, delete,
    truncate -> changes ordered by (binlog file number, pos, row)."""
    lake = built.lake
    ddl = lake.rows("select source_db, source_table, ddl_text, ddl_dialect from silver.cdc_ddl_events "
                    "where topic = 'ex.dbz.docs'")
    assert ddl == [{"source_db": "inventory", "source_table": "customers", "ddl_dialect": "mysql",
                    "ddl_text": "ALTER TABLE customers ADD middle_name varchar(255) AFTER first_name"}]
    assert markers(lake, "ex.dbz.docs") == [
        {"kafka_offset": 1, "marker_kind": "TX_BEGIN", "vendor_op": "BEGIN",
         "tx_id": "0e4d5dcd-a33b-11ea-80f1-02010a22a99e:10", "detail": None, "event_ts": "2017-02-07T20:49:37.125"},
        {"kafka_offset": 2, "marker_kind": "TX_END", "vendor_op": "END",
         "tx_id": "0e4d5dcd-a33b-11ea-80f1-02010a22a99e:10", "detail": "event_count=2",
         "event_ts": "2017-02-07T20:49:37.691"}]
    assert rejects(lake, "ex.dbz.docs") == {3: '"source.table" is missing or empty'}
    rows = changes(lake, "ex.dbz.docs")
    anne = {"id": "1004", "first_name": "Anne", "last_name": "Kretchmar", "email": "annek@noanswer.org"}
    assert [(r["kafka_offset"], r["op"], r["vendor_op"], r["table_id"], r["sort_key"], r["before"], r["after"],
             r["event_ts"], r["capture_ts"]) for r in rows] == [
        (4, "UPDATE", "u", "inventory.customers", ["3", "484", "0"], anne, {**anne, "first_name": "Anne Marie"},
         "2016-06-10T17:50:29.100", "2016-06-10T17:50:29.523"),
        (5, "DELETE", "d", "inventory.customers", ["3", "805", "0"], {**anne, "first_name": "Anne Marie"}, None,
         "2016-06-10T18:05:02.300", "2016-06-10T18:05:02.461"),
        (6, "TRUNCATE", "t", "inventory.customers", ["3", "484", "0"], None, None,
         "2016-06-10T17:50:29.100", "2016-06-10T17:50:29.523")]
    # no Kafka key in the documentation's examples: a table without key, row_key = the whole row
    assert rows[0]["pk_columns"] == [] and rows[2]["pk_columns"] == []


def test_flink_first_line_schema_included_snapshot_c(built):
    """Debezium 1.1 sends snapshot rows as `c` with source.snapshot "true": SNAPSHOT. The
    float weight is a double in JSON (3.140000104904175) and kept as written."""
    [row] = changes(built.lake, "ex.dbz.flink-first")
    assert (row["op"], row["vendor_op"], row["table_id"], row["sort_key"]) == (
        "SNAPSHOT", "c", "inventory.products", ["3", "154", "0"])
    assert row["after"] == {"id": "101", "name": "scooter", "description": "Small 2-wheel scooter",
                            "weight": "3.140000104904175"}
    assert row["column_types"] == {"id": "int32", "name": "string", "description": "string", "weight": "double"}


def test_postgres_replica_identity_default_without_key(built):
    """REPLICA IDENTITY DEFAULT, no Kafka key (Flink's sample): snapshot and create are
    changes ordered by lsn; the update without before and the delete without any image
    cannot name their row (no key) and are rejected with the reason."""
    lake = built.lake
    assert [(r["kafka_offset"], r["op"], r["sort_key"]) for r in changes(lake, "ex.dbz.pg-replica-default")] == [
        (0, "SNAPSHOT", ["34078720"]), (1, "SNAPSHOT", ["34078720"]), (3, "INSERT", ["34132560"])]
    reasons = rejects(lake, "ex.dbz.pg-replica-default")
    assert sorted(reasons) == [2, 4]
    assert reasons[2].startswith('UPDATE without a "before" image of a table without a key')
    assert reasons[4].startswith('DELETE without a "before" image')


def test_paimon_all_types_schema_included(built):
    """Flink CDC with decimal.format=numeric writes Connect-Decimal columns as JSON numbers:
    exact digits (the variant drops trailing fraction zeros: 12345.110 -> 12345.11); Date,
    Timestamp, MicroTimestamp, MicroTime converted; Bits (little-endian bytes) as the number
    MySQL shows (b'11111000111' = 1991); ZonedTimestamp, bytes, Enum/Set, Year kept; Json
    without its whitespace; geometry as compact JSON of its struct."""
    [row] = changes(built.lake, "ex.dbz.alltype")
    a = row["after"]
    assert row["op"] == "SNAPSHOT"
    assert (a["pt"], a["_numeric"], a["_fixed"], a["_big_decimal"], a["_bigint_unsigned"], a["_decimal"]) == (
        "1.1", "12345.11", "123456789876543212345678987654321.11", "2222222222222222300000001111.123456789",
        "20000000000", "11111")
    assert (a["_date"], a["_datetime"], a["_datetime3"], a["_datetime6"], a["_time"], a["_timestamp"]) == (
        "2023-03-23", "2023-03-23T14:30:05", "2023-03-23T14:30:05.123", "2023-03-23T14:30:05.123456",
        "10:13:23", "2023-03-23T22:00:10.123456Z")
    assert (a["_bit"], a["_bit1"], a["_bin"], a["_enum"], a["_set"], a["_year"], a["_json"]) == (
        "1991", "true", "Ynl0ZXMAAAAAAA==", "value1", "a,b", "2023", '{"a":"b"}')
    assert a["_point"] == '{"srid":null,"wkb":"AQEAAAAAAAAAAADwPwAAAAAAAPA/","x":1,"y":1}'
    assert (a["_float"], a["_real"]) == ("1.5", "1.000001")
    assert row["column_types"]["_datetime6"] == "int64 io.debezium.time.MicroTimestamp"


def test_paimon_schema_excluded_partial_before(built):
    """Paimon's synthetic partial `before` ({"address": ...}) is kept and marked partial;
    Flink CDC's `file: ""`/`pos: 0` give no binlog position, so ordering falls back to ts_ms."""
    rows = changes(built.lake, "ex.dbz.paimon-excluded")
    assert [(r["op"], r["sort_key"], r["before_is_partial"]) for r in rows] == [
        ("INSERT", ["1596684883000"], False), ("DELETE", ["1596684883000"], False),
        ("UPDATE", ["1596684906000"], True), ("INSERT", ["1596684883000"], False)]
    assert rows[2]["before"] == {"address": "Shanghai"}
    assert rows[1]["before"]["weight"] == "3.14"


def test_mongodb_documents_and_key(built):
    """Debezium MongoDB: after/before are Extended JSON strings; the key's `id` is `_id`."""
    rows = changes(built.lake, "ex.dbz.mongo")
    assert [(r["op"], r["table_id"], r["pk_columns"]) for r in rows] == [
        ("UPDATE", "dbz_bigdata_test.sync_test_table", ["_id"])] * 2
    assert rows[0]["row_key"] == '["{\\"$oid\\":\\"67ab25755c0d5ac87eb8c632\\"}"]'
    assert rows[1]["before"]["tags"] == '["pending"]' and rows[1]["after"]["tags"] == '["succeed"]'
    assert rows[0]["before"] is None


def test_huawei_cdl_v2_insert(built):
    """CDL message_version 2.0 (detected by shape): key from `unique`, ordered by lsn, tx_id
    txId, CDL's text types named in column_types."""
    [row] = changes(built.lake, "ex.cdl.v2")
    assert (row["op"], row["table_id"], row["pk_columns"], row["row_key"], row["sort_key"], row["tx_id"]) == (
        "INSERT", "cdl.public.ct_pg2hudi", ["id"], '["35"]', ["163955586912"], "57227663")
    assert row["after"] == {"count1": "14", "id": "35", "time1": None, "decimalNum": None}
    assert row["column_types"]["decimalNum"] == "string com.xxx.cdc.data.Decimal"
    assert (row["event_ts"], row["capture_ts"]) == ("2024-02-04T12:14:51.235", "2024-02-04T12:16:24.208")


# ---------------------------------------------------------------------------- hand-built cases


def test_every_value_type_with_schema(built):
    """Connect Decimal bytes at any precision (DECIMAL(65,30) included), VariableScaleDecimal,
    every temporal type (wall-clock types without zone, Connect Timestamp in UTC with Z,
    MySQL TIME past 24 h, a timestamp before 1970), Json compact, the rest as given."""
    [row] = [r for r in changes(built.lake, "ex.dbz.hand") if r["table_id"] == "hand.types"]
    assert row["after"] == TYPES_EXPECTED
    assert row["pk_columns"] == ["id"] and row["row_key"] == '["1"]'
    assert row["column_types"]["wide_dec"] == "bytes org.apache.kafka.connect.data.Decimal"


def test_postgres_partial_images_toast_and_deletes_by_key(built):
    lake = built.lake
    rows = [r for r in changes(lake, "ex.dbz.hand") if r["table_id"] == "hand.public.customers"]
    by_offset = {r["kafka_offset"]: r for r in rows}
    toast = by_offset[2]
    assert toast["after"] == {"id": "5", "name": "Ann B"} and toast["after_is_partial"]
    assert toast["before"] == {"id": "5"} and toast["before_is_partial"]
    gone = by_offset[4]
    assert (gone["op"], gone["before"], gone["before_is_partial"], gone["row_key"]) == (
        "DELETE", {"id": "6"}, True, '["6"]')
    assert (by_offset[8]["op"], by_offset[8]["vendor_op"]) == ("SNAPSHOT", "c")
    # gold: 5 merged the TOASTed doc back, then the full update; 6 deleted; 7 snapshot
    assert [(g["row_key"], g["row"]) for g in gold(lake, "hand.public.customers")] == [
        ('["5"]', {"id": "5", "name": None, "doc": "x"}), ('["7"]', {"id": "7", "name": "Cy", "doc": "d"})]


def test_hand_built_markers_and_rejects(built):
    lake = built.lake
    assert [(m["kafka_offset"], m["marker_kind"], m["detail"]) for m in markers(lake, "ex.dbz.hand")] == [
        (5, "TOMBSTONE", 'tombstone of key {"id": 6}'), (6, "HEARTBEAT", None),
        (7, "OTHER", "logical decoding message, prefix audit")]
    assert markers(lake, "ex.dbz.hand")[1]["event_ts"] == "2023-11-14T22:13:21.234"
    assert [m["marker_kind"] for m in markers(lake, "ex.dbz.shape-tombstone")] == ["TOMBSTONE"]
    assert rejects(lake, "ex.dbz.hand") == {
        9: "value is not valid JSON",
        10: "value is a JSON array, not an object",
        11: 'unknown "op" value "x"',
        12: 'op "u" without an "after" image',
        13: 'DELETE without a "before" image (PostgreSQL REPLICA IDENTITY DEFAULT/NOTHING?) and without a Kafka '
            'key or "unique", so the row it deletes cannot be identified',
        14: 'UPDATE without a "before" image of a table without a key (no Kafka key, no "unique"), so the row it '
            'replaces cannot be identified',
        15: 'no "op" field, and not a heartbeat, transaction or schema-change event',
    }


# ---------------------------------------------------------------------------- gold: peer test suites


def flink_state(name: str) -> list[tuple[str, str, str | None, float]]:
    expected = next(v for v in FLINK["vectors"] if v["file"] == name)["expected_final_state"]
    return sorted((str(r["id"]), r["name"], r["description"],
                   float(struct.unpack("f", struct.pack("f", r["weight"]))[0]))
                  for r in expected)


def our_state(lake: Lake, table_id: str) -> list[tuple[str, str, str | None, float]]:
    """Gold rows with the weight read back as Flink's FLOAT (float32)."""
    out = []
    for g in gold(lake, table_id):
        r = g["row"]
        assert g["row_count"] == 1
        out.append((r["id"], r["name"], r["description"],
                    float(struct.unpack("f", struct.pack("f", float(r["weight"])))[0])))
    return sorted(out)


@pytest.mark.parametrize("name", list(PEER_FILES))
def test_flink_debezium_final_state(built, name):
    """Each Flink Debezium file (no Kafka key: multiset semantics, full before images) folds
    to the final state of DebeziumJsonSerDeSchemaTest, weights compared as float32."""
    db, _ = PEER_FILES[name]
    table = f"{db}.inventory.products" if "postgres" in name else f"{db}.products"
    assert our_state(built.lake, table) == flink_state(name)


def test_flink_replica_identity_we_accept_more_with_the_kafka_key(built):
    """Flink refuses debezium-postgres-data-replica-identity.txt (before null on u/d). We
    deliberately accept it when the records carry their Kafka key, as Debezium sends them:
    it folds to the state of the other Postgres files. Without the key, the 4 updates and
    the delete are rejected (they cannot name their row) and the rest is kept."""
    lake = built.lake
    assert (our_state(lake, "peer_ri_keyed.inventory.products")
            == flink_state("debezium-postgres-data-schema-exclude.txt"))
    assert rejects(lake, "peer.flink.replica-identity-keyed") == {}
    assert sorted(rejects(lake, "peer.flink.replica-identity")) == [9, 10, 13, 14, 15]


# ---------------------------------------------------------------------------- rendered streams


@pytest.mark.parametrize("schemas", [False, True])
def test_rendered_stream_folds_to_synth(built, schemas):
    """A rendered synth stream (key changes as d + tombstone + c, TRUNCATE of the unkeyed
    table, NULLs, unicode, long decimals, base64 binary; with the schema, decimals as Connect
    bytes) folds in gold to synth.fold."""
    stream = built.stream_schemas if schemas else built.stream
    expected = synth.fold(stream)
    got = {(r["table_id"], r["row_key"]): (r["row"], r["row_count"]) for r in built.lake.rows(
        "select table_id, row_key, row, row_count from gold.cdc_current_rows where table_id like :p",
        p=stream.db + ".%")}
    assert got == expected
    assert built.lake.rows("select count(*) as n from silver.cdc_rejects where topic like 'synth.dbz%'") == [{"n": 0}]
