"""Alibaba DTS Avro (FORMATS.md §8 E1): raw Avro datums of the DTS `Record` schema decode to
the silver rows they describe, malformed values end in silver.cdc_rejects, and a generated
stream folds in gold to the plain-Python fold.

Sources: the schemas and SYNTHETIC_update_record.bin of tests/vectors/avro-schemas/dts_avro/
(see SOURCES.md there: the sample is invented, written with Record.avsc); the vendor document
(alibaba-dts-kafka-formats.ja.txt) only says the format is DTS Avro and DDL is a STRING.
Every other record is written here with fastavro.schemaless_writer from those schemas
(tests/renderers/dts_avro.py: `record`, `value`, `encode`). Times: DTS `Timestamp` is an
instant (epoch seconds + microseconds) rendered in UTC; `DateTime` is a wall clock, rendered
without zone; the Spark session zone is UTC.

The first tests are plain Python (the UDF function, no Spark); the rest share one lake and
ONE build: every case lands under its own topic (most without a declared format, so shape
detection routes them), with var cdc_primary_keys configuring one table's key.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import synth
from renderers import dts_avro as render_dts
from renderers.dts_avro import encode, record, value
from udfs.dts_avro import decode_dts_avro

if TYPE_CHECKING:
    from cdclake.lake import Lake

SAMPLE = Path(__file__).resolve().parents[1] / "vectors" / "avro-schemas" / "dts_avro" / "SYNTHETIC_update_record.bin"
EXAMPLE_VARS = {"cdc_primary_keys": {"shop.configured": ["code"]}}
TOPIC = "ex.dtsavro"
GEN_DB = "gen_dts_avro"

# ---------------------------------------------------------------------------- records

ALL_FIELDS = [("id", 8), ("name", 15), ("name_gbk", 15), ("name_latin1", 254), ("raw", 254), ("amount", 246),
              ("ratio", 5), ("tiny", 4), ("big", 5), ("ts", 17), ("d", 10), ("t", 19), ("dt", 18), ("y", 13),
              ("tstz", 7), ("wkb", 255), ("wkt", 255), ("blob", 252), ("js", 245), ("en", 247),
              ("null_avro", 253), ("null_empty", 253), ("not_logged", 253)]
BIG_DECIMAL = "-123456789012345678901234567890123456789.0123456789"


def dt(**parts: int | None) -> dict[str, int | None]:
    return {k: parts.get(k) for k in ("year", "month", "day", "hour", "minute", "second", "millis")}


ALL_VALUES = [
    value("Integer", {"precision": 20, "value": "18446744073709551615"}),
    value("Character", {"charset": "utf8mb4", "value": "héllo 华为 🚀".encode()}),
    value("Character", {"charset": "gbk", "value": "阿里云".encode("gbk")}),
    value("Character", {"charset": "latin1", "value": b"caf\xe9 \x80"}),
    value("Character", {"charset": "binary", "value": b"\x00\xff"}),
    value("Decimal", {"value": BIG_DECIMAL, "precision": 49, "scale": 10}),
    value("Float", {"value": 0.1, "precision": 22, "scale": 31}),
    value("Float", {"value": 1e-05, "precision": 12, "scale": 31}),
    value("Float", {"value": 1.2510357e7, "precision": 22, "scale": 31}),
    value("Timestamp", {"timestamp": 1_700_000_000, "millis": 1234}),
    value("DateTime", dt(year=2024, month=2, day=29)),
    value("DateTime", dt(hour=-838, minute=59, second=59, millis=500000)),
    value("DateTime", dt(year=2023, month=11, day=14, hour=22, minute=13, second=20, millis=123456)),
    value("DateTime", dt(year=2024)),
    value("TimestampWithTimeZone", {"value": dt(year=2024, month=1, day=2, hour=3, minute=4, second=5, millis=0),
                                    "timezone": "+08:00"}),
    value("BinaryGeometry", {"type": "POINT", "value": b"\x01\x01\x00\x00\x00" + bytes(16)}),
    value("TextGeometry", {"type": "POINT", "value": "POINT(1 2)"}),
    value("BinaryObject", {"type": "BLOB", "value": bytes(range(256))}),
    value("TextObject", {"type": "JSON", "value": '{"a": [1, 2.50, "x y"], "b": {"c": null}}'}),
    value("TextObject", {"type": "ENUM", "value": "medium"}),
    None,
    value("EmptyObject", "NULL"),
    value("EmptyObject", "NONE"),
]
ALL_TEXT = {
    "id": "18446744073709551615", "name": "héllo 华为 🚀", "name_gbk": "阿里云", "name_latin1": "café €",
    "raw": "AP8=", "amount": BIG_DECIMAL, "ratio": "0.1", "tiny": "0.00001", "big": "12510357",
    "ts": "2023-11-14T22:13:20.001234Z", "d": "2024-02-29", "t": "-838:59:59.5",
    "dt": "2023-11-14T22:13:20.123456", "y": "2024", "tstz": "2024-01-02T03:04:05+08:00",
    "wkb": base64.b64encode(b"\x01\x01\x00\x00\x00" + bytes(16)).decode(), "wkt": "POINT(1 2)",
    "blob": base64.b64encode(bytes(range(256))).decode(), "js": '{"a":[1,2.50,"x y"],"b":{"c":null}}',
    "en": "medium", "null_avro": None, "null_empty": None,
}
ALL_TYPES = {
    "id": "8 Integer", "name": "15 Character:utf8mb4", "name_gbk": "15 Character:gbk",
    "name_latin1": "254 Character:latin1", "raw": "254 Character:binary:base64", "amount": "246 Decimal",
    "ratio": "5 Float", "tiny": "4 Float", "big": "5 Float", "ts": "17 Timestamp", "d": "10 DateTime",
    "t": "19 DateTime", "dt": "18 DateTime", "y": "13 DateTime", "tstz": "7 TimestampWithTimeZone",
    "wkb": "255 BinaryGeometry:POINT", "wkt": "255 TextGeometry:POINT", "blob": "252 BinaryObject:BLOB",
    "js": "245 TextObject:JSON", "en": "247 TextObject:ENUM", "null_avro": "253",
    "null_empty": "253 EmptyObject:NULL", "not_logged": "253 EmptyObject:NONE",
}

ORDER_FIELDS = [("id", 3), ("note", 15)]
# fields in another order than the table's (id, note): images follow `fields`
ORDER_FIELDS_SWAPPED = [("note", 15), ("id", 3)]


def i(v: str) -> tuple[str, Any]:
    return value("Integer", {"precision": 11, "value": v})


def c(v: str, charset: str = "utf8mb4") -> tuple[str, Any]:
    return value("Character", {"charset": charset, "value": v.encode("utf-8" if "utf8" in charset else charset)})


def case_records() -> dict[str, list[bytes | str]]:
    """Kafka values per topic suffix: bytes land as value_base64, str as text."""
    pk = {"pk": ["id"]}
    return {
        "sample": [SAMPLE.read_bytes()],
        "branches": [
            encode(record("INSERT", "shop.all_types", ALL_FIELDS, None, ALL_VALUES, source_ts=1_700_000_100,
                          position="5000@12", txid="tx-9", pk=["id"], born_ms=1_700_000_100_250,
                          process_ts=[1_700_000_100_400, 1_700_000_100_900])),
        ],
        "orders": [
            encode(record("INIT", "shop.orders", ORDER_FIELDS, None, [i("1"), c("first")], source_ts=100,
                          position="10@3", **pk)),
            encode(record("UPDATE", "shop.orders", ORDER_FIELDS_SWAPPED, [c("first"), i("1")],
                          [c("second"), i("1")], source_ts=101, position="20@3", **pk)),
            # the update of a column that was not logged: partial images
            encode(record("UPDATE", "shop.orders", ORDER_FIELDS, [i("1"), value("EmptyObject", "NONE")],
                          [i("1"), value("EmptyObject", "NONE")], source_ts=102, position="30@3", **pk)),
            encode(record("INSERT", "shop.orders", ORDER_FIELDS, None, [i("2"), c("two")], source_ts=103,
                          position="5@4", **pk)),
            encode(record("DELETE", "shop.orders", ORDER_FIELDS, [i("2"), c("two")], None, source_ts=104,
                          position="15@4", **pk)),
        ],
        "schema2019": [
            encode({k: v for k, v in record("INSERT", "shop.old_schema", ORDER_FIELDS, None, [i("7"), c("old")],
                                            **pk).items() if k != "bornTimestamp"}, version="2019"),
        ],
        "names": [
            encode(record("INSERT", "db\\u002E1.sch.t\\u002Ex", ORDER_FIELDS, None, [i("1"), c("a")], **pk)),
            encode(record("INSERT", "shop.configured", [("code", 15), ("v", 3)], None, [c("A"), i("1")])),
            encode(record("INSERT", "shop.unique_only", [("code", 15), ("v", 3)], None, [c("B"), i("2")],
                          tags={"pk_uk_info": json.dumps({"uk_v": ["v"], "uk_code": ["code"]})})),
            encode(record("INSERT", "shop.keyless", [("code", 15), ("v", 3)], None, [c("C"), i("3")])),
        ],
        "control": [
            encode(record("BEGIN", None, None, source_ts=200, position="100@9", txid="77")),
            encode(record("DDL", "shop", None, None, "CREATE TABLE t2 (id int primary key)", source_ts=201,
                          position="200@9", txid="77")),
            encode(record("COMMIT", None, None, source_ts=202, position="300@9", txid="77")),
            encode(record("HEARTBEAT", None, None, source_ts=203, position="400@9")),
            encode(record("CHECKPOINT", None, None, source_ts=204, position="500@9")),
            encode(record("ROLLBACK", None, None, source_ts=205, position="600@9")),
            bytes(48),
            encode(record("DDL", "shop.orders", None, None, "TRUNCATE TABLE orders", source_ts=206,
                          position="700@9")),
        ],
        "rejects": [
            encode(record("INSERT", "shop.bad", ORDER_FIELDS, None, [i("1"), c("x")], **pk))[:-6],
            bytes(range(7, 107)),
            encode(record("INSERT", "shop.bad", ORDER_FIELDS, None, [i("1")], **pk)),
            encode(record("UPDATE", "shop.bad", ORDER_FIELDS, [i("1"), c("x"), c("y")], [i("1"), c("z")], **pk)),
            encode(record("INSERT", None, ORDER_FIELDS, None, [i("1"), c("x")], **pk)),
            encode(record("DELETE", "shop.bad", ORDER_FIELDS, None, None, **pk)),
            encode(record("INSERT", "shop.bad", ORDER_FIELDS, None, [value("EmptyObject", "NONE"), c("x")], **pk)),
        ],
        "not-base64": ["this is not base64 at all!"],
    }


REJECT_REASONS = [
    "truncated or not a DTS Avro Record: 2020 schema: EOFError",
    "truncated or not a DTS Avro Record: 2020 schema: ",
    "afterImages has 1 values for 2 fields",
    "beforeImages has 3 values for 2 fields",
    "INSERT without objectName",
    "DELETE without beforeImages",
    "the image lacks key column(s) id, so the row it changes cannot be identified",
]


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def decoded(data: bytes) -> dict[str, Any]:
    return json.loads(decode_dts_avro(b64(data)))


# ---------------------------------------------------------------------------- the UDF function (no Spark)


def test_udf_reads_the_synthetic_sample():
    """SYNTHETIC_update_record.bin (2020 schema): an UPDATE of db1.`t.odd` (objectName with
    the escaped dot), DateTime `millis` as microseconds, Decimal text kept, a NULL note
    becoming utf8mb4 text."""
    out = decoded(SAMPLE.read_bytes())
    assert {k: out[k] for k in ("schema_version", "id", "sourceTimestamp", "sourcePosition", "sourceTxid",
                                "sourceType", "operation", "objectName", "bornTimestamp", "error")} == {
        "schema_version": "2020", "id": "42", "sourceTimestamp": 1_700_000_000, "sourcePosition": "1234@5",
        "sourceTxid": "0", "sourceType": "MySQL", "operation": "UPDATE", "objectName": "db1.t\\u002Eodd",
        "bornTimestamp": 1_700_000_000_000, "error": None}
    assert [f["name"] for f in out["fields"]] == ["id", "amount", "updated_at", "note"]
    assert out["before"] == ["7", "10.50", "2023-11-14T22:13:20.123456", None]
    assert out["after"] == ["7", "11.00", "2023-11-14T22:13:21", "héllo"]
    assert out["afterTypes"] == ["Integer", "Decimal", "DateTime", "Character:utf8mb4"]
    assert out["tags"]["pk_uk_info"] == '{"PRIMARY":["id"]}'


def test_udf_renders_every_union_branch():
    out = decoded(encode(record("INSERT", "shop.all_types", ALL_FIELDS, None, ALL_VALUES)))
    names = [f["name"] for f in out["fields"]]
    assert dict(zip(names, out["after"], strict=True)) == {**ALL_TEXT, "not_logged": None}
    assert out["afterMissing"] == [names.index("not_logged")]
    assert out["before"] is None and out["ddl"] is None


@pytest.mark.parametrize(("datum", "text"), [
    (value("Timestamp", {"timestamp": 0, "millis": 500000}), "1970-01-01T00:00:00.5Z"),
    (value("Timestamp", {"timestamp": -1, "millis": 1}), "1969-12-31T23:59:59.000001Z"),
    (value("DateTime", dt(hour=25, minute=0, second=1)), "25:00:01"),
    (value("DateTime", dt(year=0, month=0, day=0)), "0000-00-00"),
    (value("TimestampWithTimeZone", {"value": dt(year=2024, month=1, day=2, hour=3, minute=4, second=5,
                                                 millis=10), "timezone": "Asia/Shanghai"}),
     "2024-01-02T03:04:05.00001 Asia/Shanghai"),
    (value("TimestampWithTimeZone", {"value": dt(year=2024, month=1, day=2, hour=3, minute=4, second=5),
                                     "timezone": "-0530"}), "2024-01-02T03:04:05-05:30"),
    (value("TimestampWithTimeZone", {"value": dt(year=2024, month=1, day=2, hour=3, minute=4, second=5),
                                     "timezone": "UTC"}), "2024-01-02T03:04:05Z"),
    (value("Float", {"value": -2.5e-7, "precision": 0, "scale": 0}), "-0.00000025"),
    (value("Float", {"value": 1e22, "precision": 0, "scale": 0}), "10000000000000000000000"),
    (value("Float", {"value": float("nan"), "precision": 0, "scale": 0}), "NaN"),
    (value("Decimal", {"value": "1.5E+3", "precision": 5, "scale": 0}), "1500"),
    (value("Character", {"charset": "gbk", "value": b"\xff\xff"}), "//8="),
    (value("Character", {"charset": "no-such-charset", "value": b"ab"}), "YWI="),
    (value("Character", {"charset": "ucs2", "value": "Ω".encode("utf-16-be")}), "Ω"),
    (value("TextObject", {"type": "JSON", "value": "not json {"}), "not json {"),
])
def test_udf_canonical_text(datum, text):
    out = decoded(encode(record("INSERT", "a.b", [("x", 0)], None, [datum])))
    assert out["after"] == [text], out


def test_udf_undecodable_character_says_base64_in_its_type():
    out = decoded(encode(record("INSERT", "a.b", [("x", 15)], None,
                                [value("Character", {"charset": "gbk", "value": b"\xff\xff"})])))
    assert out["afterTypes"] == ["Character:gbk:base64"]


def test_udf_reads_a_2019_record_with_the_2019_writer_schema():
    rec = {k: v for k, v in record("INSERT", "a.b", ORDER_FIELDS, None, [i("7"), c("x")]).items()
           if k != "bornTimestamp"}
    out = decoded(encode(rec, version="2019"))
    assert (out["schema_version"], out["bornTimestamp"], out["after"]) == ("2019", 0, ["7", "x"])
    assert decoded(encode(record("INSERT", "a.b", ORDER_FIELDS, None, [i("7"), c("x")])))["schema_version"] == "2020"


def test_udf_ddl_noop_and_errors():
    ddl = decoded(encode(record("DDL", "shop", None, None, "ALTER TABLE t ADD c int")))
    assert (ddl["operation"], ddl["ddl"], ddl["fields"], ddl["after"]) == ("DDL", "ALTER TABLE t ADD c int", None, None)
    assert decoded(bytes(48)) == {"schema_version": None, "operation": "NOOP", "noop": True, "error": None}
    assert decoded(bytes(47))["error"].startswith("truncated or not a DTS Avro Record: ")
    good = encode(record("INSERT", "a.b", ORDER_FIELDS, None, [i("7"), c("x")]))
    assert decoded(good[:-3])["error"].startswith("truncated or not a DTS Avro Record: 2020 schema: EOFError")
    assert decoded(good + b"\x00\x00")["error"].endswith("bytes left unread")
    assert json.loads(decode_dts_avro("%%%"))["error"].startswith("not base64")
    assert json.loads(decode_dts_avro(""))["error"] == "empty value"
    assert decode_dts_avro(None) is None
    for seed in range(20):  # random bytes never raise
        assert "error" in json.loads(decode_dts_avro(b64(os.urandom(64 + seed))))


def test_udf_finds_its_packaged_schemas():
    from udfs import dts_avro

    assert {p.name for p in dts_avro.SCHEMA_DIR.glob("*.avsc")} == {"Record.avsc", "Record.2019-11-14.avsc"}
    assert set(dts_avro.schemas()) == {"2020", "2019"}


# ---------------------------------------------------------------------------- the lake


def _land_values(lake: Lake, tmp: Path, topic: str, values: list[bytes | str], declared: str | None) -> None:
    recs = [synth.Record.of_bytes(topic, 0, n, 1_700_000_000_000 + n, v) if isinstance(v, bytes)
            else synth.Record(topic, 0, n, 1_700_000_000_000 + n, v) for n, v in enumerate(values)]
    path = tmp / f"{topic}.jsonl"
    synth.write_records(path, recs)
    lake.land([path], declared_format=declared)


@cache
def generated_stream() -> synth.Stream:
    return synth.generate(GEN_DB, n_changes=300, seed=31)


@pytest.fixture(scope="module")
def stream() -> synth.Stream:
    return generated_stream()


def land_examples(lake: Lake, tmp: Path) -> Iterator[None]:
    """One batch (tests/examples/conftest.py); the lake is the result."""
    stream = generated_stream()
    for suffix, values in case_records().items():
        # shape detection routes the binary values; the text value needs the declared format
        _land_values(lake, tmp, f"{TOPIC}.{suffix}", values, "dts_avro" if suffix == "not-base64" else None)
    path = tmp / "generated.jsonl"
    synth.write_records(path, render_dts.render(stream, topic="gen.dts_avro"))
    lake.land([path])
    yield
    return lake


def changes(lake: Lake, suffix: str) -> list[dict[str, Any]]:
    return lake.rows(
        """select kafka_offset, op, vendor_op, source_db, source_schema, source_table, table_id, pk_columns,
                  row_key, before, after, before_is_partial, after_is_partial, column_types, tx_id,
                  date_format(event_ts, "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'") as event_ts,
                  date_format(capture_ts, "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'") as capture_ts,
                  transform(sort_key, k -> cast(k as string)) as sort_key, vendor_format
           from silver.cdc_changes where topic = :topic order by kafka_offset""",
        topic=f"{TOPIC}.{suffix}")


def test_sample_is_detected_and_decoded(built):
    (row,) = changes(built, "sample")
    assert row == {
        "kafka_offset": 0, "op": "UPDATE", "vendor_op": "UPDATE", "source_db": "db1", "source_schema": None,
        "source_table": "t.odd", "table_id": "db1.`t.odd`", "pk_columns": ["id"], "row_key": '["7"]',
        "before": {"id": "7", "amount": "10.50", "updated_at": "2023-11-14T22:13:20.123456", "note": None},
        "after": {"id": "7", "amount": "11.00", "updated_at": "2023-11-14T22:13:21", "note": "héllo"},
        "before_is_partial": False, "after_is_partial": False,
        "column_types": {"id": "8 Integer", "amount": "246 Decimal", "updated_at": "18 DateTime",
                         "note": "253 Character:utf8mb4"},
        "tx_id": "0", "event_ts": "2023-11-14T22:13:20.000Z", "capture_ts": "2023-11-14T22:13:20.000Z",
        "sort_key": ["1700000000", "5", "1234"], "vendor_format": "dts_avro",
    }


def test_every_union_branch_through_spark(built):
    """Canonical text of every branch (decimals exact, Timestamp µs, negative TIME, base64
    binary, compact JSON); EmptyObject NONE leaves its column out (partial after image) while
    EmptyObject NULL and Avro null are NULL values; capture_ts = last processTimestamps."""
    (row,) = changes(built, "branches")
    assert row["after"] == ALL_TEXT
    assert row["after_is_partial"] is True and row["before"] is None
    assert row["column_types"] == ALL_TYPES
    assert (row["tx_id"], row["event_ts"], row["capture_ts"], row["sort_key"]) == (
        "tx-9", "2023-11-14T22:15:00.000Z", "2023-11-14T22:15:00.900Z", ["1700000100", "12", "5000"])
    assert row["row_key"] == '["18446744073709551615"]'


def test_orders_snapshot_updates_partial_and_delete(built):
    """INIT is a SNAPSHOT; fields in another order than the table's zip by name; an update of
    a column that was not logged (NONE) has partial images and gold keeps the stored value."""
    rows = changes(built, "orders")
    assert [(r["op"], r["before"], r["after"], r["before_is_partial"], r["after_is_partial"]) for r in rows] == [
        ("SNAPSHOT", None, {"id": "1", "note": "first"}, False, False),
        ("UPDATE", {"id": "1", "note": "first"}, {"id": "1", "note": "second"}, False, False),
        ("UPDATE", {"id": "1"}, {"id": "1"}, True, True),
        ("INSERT", None, {"id": "2", "note": "two"}, False, False),
        ("DELETE", {"id": "2", "note": "two"}, None, False, False),
    ]
    assert [r["sort_key"] for r in rows] == [["100", "3", "10"], ["101", "3", "20"], ["102", "3", "30"],
                                             ["103", "4", "5"], ["104", "4", "15"]]
    # the TRUNCATE of shop.orders (topic control) comes later in sourceTimestamp: the table is empty
    assert built.rows("select * from gold.cdc_current_rows where table_id = 'shop.orders'") == []
    history = built.rows("""select row from gold.cdc_row_history where table_id = 'shop.orders' and row_key = '["1"]'
                            order by valid_from, row['note']""")
    assert {"id": "1", "note": "second"} in [h["row"] for h in history]


def test_2019_record_decodes(built):
    (row,) = changes(built, "schema2019")
    assert (row["op"], row["table_id"], row["after"], row["capture_ts"]) == (
        "INSERT", "shop.old_schema", {"id": "7", "note": "old"}, None)


def test_object_names_and_keys(built):
    """`\\u002E` inside a name is a dot (the table id quotes such a part); a 3-part name is
    db.schema.table; the key is PRIMARY, else the configured key (var cdc_primary_keys),
    else the first unique key by name, else none."""
    rows = changes(built, "names")
    assert [(r["source_db"], r["source_schema"], r["source_table"], r["table_id"], r["pk_columns"], r["row_key"])
            for r in rows] == [
        ("db.1", "sch", "t.x", "`db.1`.sch.`t.x`", ["id"], '["1"]'),
        ("shop", None, "configured", "shop.configured", ["code"], '["A"]'),
        ("shop", None, "unique_only", "shop.unique_only", ["code"], '["B"]'),
        ("shop", None, "keyless", "shop.keyless", [], '{"code":"C","v":"3"}'),
    ]


def test_ddl_markers_noop_and_truncate(built):
    topic = f"{TOPIC}.control"
    markers = built.rows("""select kafka_offset, marker_kind, vendor_op, detail, tx_id from silver.cdc_heartbeats
                            where topic = :topic order by kafka_offset""", topic=topic)
    assert [(m["kafka_offset"], m["marker_kind"], m["vendor_op"], m["tx_id"]) for m in markers] == [
        (0, "TX_BEGIN", "BEGIN", "77"), (2, "TX_END", "COMMIT", "77"), (3, "HEARTBEAT", "HEARTBEAT", None),
        (4, "HEARTBEAT", "CHECKPOINT", None), (5, "OTHER", "ROLLBACK", None), (6, "OTHER", "NOOP", None)]
    assert markers[5]["detail"] == "48-byte NOOP filler"
    ddl = built.rows("select ddl_text, source_db from silver.cdc_ddl_events where topic = :topic", topic=topic)
    assert ddl == [{"ddl_text": "CREATE TABLE t2 (id int primary key)", "source_db": "shop"}]
    (truncate,) = built.rows("select op, table_id from silver.cdc_changes where topic = :topic", topic=topic)
    assert truncate == {"op": "TRUNCATE", "table_id": "shop.orders"}


def test_rejects_name_the_problem(built):
    rejects = built.rows("""select kafka_offset, vendor_format, reject_stage, reject_reason from silver.cdc_rejects
                            where topic like 'ex.dtsavro.%' order by topic, kafka_offset""")
    by_offset = [r for r in rejects if r["vendor_format"] == "dts_avro"]
    assert [r["reject_stage"] for r in by_offset] == ["decode"] * 8
    not_b64, *bad = by_offset
    assert not_b64["reject_reason"].startswith("not base64")
    assert len(bad) == len(REJECT_REASONS)
    for reject, reason in zip(bad, REJECT_REASONS, strict=True):
        assert reject["reject_reason"].startswith(reason), (reject, reason)
    assert changes(built, "rejects") == []


def test_generated_stream_folds_like_python(built, stream):
    expected = render_dts.expected_state(stream)
    actual = {(r["table_id"], r["row_key"]): (r["row"], r["row_count"]) for r in built.rows(
        "select table_id, row_key, row, row_count from gold.cdc_current_rows where table_id like :p",
        p=GEN_DB + ".%")}
    assert expected and actual == expected
