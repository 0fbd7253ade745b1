"""The Alibaba (and Huawei DRS Avro) renderers of the real-database harness, on a small
hand-built capture: message shapes against the vendor examples (shared/vectors), value
encodings spot-checked, Avro read back with fastavro, every row change exactly once,
heartbeats present. Pure Python, no Spark."""

from __future__ import annotations

import base64
import datetime as dt
import io
import json
import re
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import fastavro
import pytest

from realdb import render_alibaba as ra
from realdb.model import Capture, Column, Event, Row, RowChange, TableSchema
from synth import Record
from udfs import drs_avro as drs_schemas, dts_avro as dts_schemas

VECTORS = Path(__file__).resolve().parent / "vectors"  # copies of shared/vectors
T0 = 1_714_979_000
DB = "lake_db"

ITEMS = TableSchema("shop", "items", (
    Column("id", "int(11)", False), Column("big", "bigint(20) unsigned"), Column("price", "decimal(65,30)"),
    Column("ratio", "float"), Column("score", "double"), Column("name", "varchar(64)"), Column("body", "text"),
    Column("code", "varbinary(16)"), Column("image", "blob"), Column("born", "date"),
    Column("seen", "datetime(6)"), Column("stamp", "timestamp(6)"), Column("span", "time"), Column("yr", "year(4)"),
    Column("doc", "json"), Column("kind", "enum('a','b')"), Column("tags", "set('x','y')"), Column("flag", "bit(1)"),
    Column("mask", "bit(12)"), Column("fixed", "binary(8)")), pk=("id",))
PAIRS = TableSchema("shop", "pairs", (Column("a", "int(11)", False), Column("b", "varchar(8)", False),
                                      Column("v", "int(11)")), pk=("a", "b"))
LOG = TableSchema("shop", "log", (Column("msg", "varchar(32)"), Column("n", "int(11)")))

FULL: Row = {
    "id": 1, "big": 18446744073709551615, "price": Decimal("12345678901234567890.123456789012345678901234567890"),
    "ratio": 1.100000023841858, "score": 12510357.0, "name": "naïve 华为云 🚀", "body": 'said "hi"\n',
    "code": b"ab\x00\x00", "image": bytes([0, 255, 128, 1]), "born": dt.date(1000, 1, 1),
    "seen": dt.datetime(9999, 12, 31, 23, 59, 59, 999999), "stamp": dt.datetime(2024, 5, 6, 7, 8, 9, 123456),
    "span": -dt.timedelta(hours=838, minutes=59, seconds=59), "yr": 2024, "doc": '{"a": [1, 2.50]}',
    "kind": "b", "tags": "x,y", "flag": 1, "mask": 4095, "fixed": b"ab" + bytes(6),
}
NULLS: Row = {c.name: None for c in ITEMS.columns} | {"id": 2}
MOVED: Row = FULL | {"id": 3, "name": "moved", "born": dt.date(9999, 12, 31)}


def _event(seq: int, ts: int, op: str, schema: TableSchema, rows: list[RowChange], gtid: str,
           sql: str | None = None) -> Event:
    kind = "ddl" if op in ("DDL", "TRUNCATE") else "rows"
    return Event(kind, "shop", schema.name, op, schema, rows, sql=sql, seq=seq, ts=ts,
                 gtid=gtid, xid=100 + seq, log_file="mysql-bin.000003", log_pos=400 + 200 * seq)


CAPTURE = Capture("mariadb", "11.4.2-MariaDB", [
    _event(0, T0, "INSERT", ITEMS, [RowChange(None, FULL), RowChange(None, NULLS)], "0-1-1"),
    _event(1, T0 + 1, "INSERT", PAIRS, [RowChange(None, {"a": 1, "b": "x", "v": 10}),
                                        RowChange(None, {"a": 2, "b": "y", "v": 20})], "0-1-2"),
    _event(2, T0 + 2, "UPDATE", ITEMS, [RowChange(FULL, MOVED)], "0-1-3"),
    _event(3, T0 + 2, "UPDATE", PAIRS, [RowChange({"a": 1, "b": "x", "v": 10}, {"a": 1, "b": "x", "v": 11})], "0-1-3"),
    _event(4, T0 + 7, "DELETE", ITEMS, [RowChange(NULLS, None)], "0-1-4"),
    _event(5, T0 + 8, "INSERT", LOG, [RowChange(None, {"msg": "dup", "n": 1}),
                                      RowChange(None, {"msg": "dup", "n": 1})], "0-1-5"),
    _event(6, T0 + 8, "DELETE", LOG, [RowChange({"msg": "dup", "n": 1}, None)], "0-1-6"),
    _event(7, T0 + 9, "TRUNCATE", PAIRS, [], "0-1-7", sql="TRUNCATE TABLE `shop`.`pairs`"),
    _event(8, T0 + 9, "INSERT", PAIRS, [RowChange(None, {"a": 3, "b": "z", "v": None})], "0-1-8"),
], final={})

# the columns that identify a row image in every format, to check each change arrives once
IDENTITY = {"items": ["id"], "pairs": ["a", "b", "v"], "log": ["msg", "n"]}


def _expected_images() -> Counter[tuple[str, str, tuple[str | None, ...]]]:
    """(table, before|after, identity values as text) of every row image of the capture."""
    images: Counter[tuple[str, str, tuple[str | None, ...]]] = Counter()
    for event in CAPTURE.events:
        for change in event.rows:
            for side, row in (("before", change.before), ("after", change.after)):
                if row is not None:
                    images[(event.table, side, _identity(event.table, row))] += 1
    return images


def _identity(table: str, row: dict[str, Any]) -> tuple[str | None, ...]:
    return tuple(None if row[c] is None else str(row[c]) for c in IDENTITY[table])


def _json_values(records: list[Record]) -> list[dict[str, Any]]:
    return [json.loads(r.value) for r in sorted(records, key=lambda r: (r.partition, r.offset)) if r.value]


def _offsets_are_dense(records: list[Record]) -> bool:
    by_partition: dict[int, list[int]] = {}
    for r in records:
        by_partition.setdefault(r.partition, []).append(r.offset)
    return all(offsets == list(range(len(offsets))) for offsets in by_partition.values())


# ----------------------------------------------------------------------------- value helpers


def test_julian_dates_before_the_gregorian_cutover() -> None:
    # java.util.GregorianCalendar reads 1000-01-01 as Julian: the proleptic 1000-01-06
    assert ra._java_epoch_days(dt.date(1000, 1, 1)) == (dt.date(1000, 1, 6) - dt.date(1970, 1, 1)).days
    assert ra._java_epoch_days(dt.date(1582, 10, 4)) == (dt.date(1582, 10, 14) - dt.date(1970, 1, 1)).days
    assert ra._java_epoch_days(dt.date(1582, 10, 15)) == (dt.date(1582, 10, 15) - dt.date(1970, 1, 1)).days


def test_ddl_text_gets_the_new_database_name() -> None:
    event = CAPTURE.events[7]
    assert ra._ddl_text(event, DB) == "TRUNCATE TABLE `lake_db`.`pairs`"


def test_unknown_types_and_other_sources_are_refused() -> None:
    with pytest.raises(ValueError, match="geometry"):
        ra._dts_value(Column("g", "geometry"), b"\0")
    with pytest.raises(ValueError, match="postgres"):
        ra.render_dts_avro(Capture("postgres", "16.3", [], {}), DB, "t")


# ----------------------------------------------------------------------------- DataWorks


@pytest.fixture(scope="module")
def dataworks() -> list[Record]:
    return ra.render_dataworks_json(CAPTURE, DB, "dw", partitions=3, seed=1)


def _vendor_lines(path: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (VECTORS / path).read_text(encoding="utf-8").splitlines() if line.strip()]


def _shape(value: Any) -> Any:
    """The keys of a message, nested, in order, without values and without the row images
    (which hold each table's own columns)."""
    if isinstance(value, dict):
        return [(k, None if k in ("before", "after") else _shape(v)) for k, v in value.items()]
    return None


def test_dataworks_messages_have_the_vendor_shape(dataworks: list[Record]) -> None:
    vendor = _vendor_lines("dataworks_kafka_json/vendor_doc_kafka.ndjson")
    vendor_heartbeat, vendor_insert = vendor[0], vendor[1]
    for message in _json_values(dataworks):
        if message["payload"]["op"] == "MHEARTBEAT":
            ms = message["payload"]["timestamp"]["eventTime"]
            assert message == vendor_heartbeat | {"payload": vendor_heartbeat["payload"] | {
                "timestamp": {"eventTime": ms, "checkpointTime": ms}}}
            continue
        assert _shape(message) == _shape(vendor_insert)
        images = [message["payload"][side] for side in ("before", "after")]
        assert [list(image) for image in images if image is not None] == [["dataColumn"]]
        assert message["version"] == "0.0.1" and message["payload"]["ddl"] is None
    assert _offsets_are_dense(dataworks)


def test_dataworks_every_row_change_once(dataworks: list[Record]) -> None:
    ops = {"INSERT": "after", "UPDATE_AFTER": "after", "DELETE": "before", "UPDATE_BEFOR": "before"}
    seen: Counter[tuple[str, str, tuple[str | None, ...]]] = Counter()
    for message in _json_values(dataworks):
        op = message["payload"]["op"]
        if op != "MHEARTBEAT":
            side = ops[op]
            assert message["payload"]["before" if side == "after" else "after"] is None
            table = message["schema"]["source"]["tableName"]
            seen[(table, side, _identity(table, message["payload"][side]["dataColumn"]))] += 1
    assert seen == _expected_images()


def test_dataworks_sequence_ids_order_changes_and_pair_updates(dataworks: list[Record]) -> None:
    messages = sorted((m for m in _json_values(dataworks) if m["payload"]["op"] != "MHEARTBEAT"),
                      key=lambda m: (int(m["payload"]["sequenceId"]), m["payload"]["op"] == "UPDATE_AFTER"))
    ids = [m["payload"]["sequenceId"] for m in messages]
    assert all(re.fullmatch(r"\d{19}", i) for i in ids)
    by_id = Counter(ids)
    for message in messages:
        expected = 2 if message["payload"]["op"].startswith("UPDATE") else 1
        assert by_id[message["payload"]["sequenceId"]] == expected
    # sequence order is source order: the items INSERT first, the last pairs INSERT last
    assert [m["payload"]["after"]["dataColumn"].get("id") for m in messages[:2]] == [1, 2]
    assert messages[-1]["payload"]["after"]["dataColumn"] == {"a": 3, "b": "z", "v": None}
    assert all(m["payload"]["timestamp"]["systemTime"] > m["payload"]["timestamp"]["eventTime"] for m in messages)


def test_dataworks_values_follow_the_type_list(dataworks: list[Record]) -> None:
    insert = next(m for m in _json_values(dataworks)
                  if m["payload"]["op"] == "INSERT" and m["payload"]["after"]["dataColumn"].get("id") == 1)
    assert insert["schema"]["primaryKey"] == ["id"]
    assert insert["schema"]["source"] == {"dbType": "MySQL", "dbName": DB, "tableName": "items"}
    assert [c["type"] for c in insert["schema"]["dataColumn"]] == [
        "LONG", "LONG", "DOUBLE", "DOUBLE", "DOUBLE", "STRING", "STRING", "BYTES", "BYTES", "DATE", "DATE", "DATE",
        "DATE", "STRING", "STRING", "STRING", "STRING", "BOOLEAN", "LONG", "BYTES"]
    epoch = dt.date(1970, 1, 1)
    assert insert["payload"]["after"]["dataColumn"] == {
        "id": 1, "big": 18446744073709551615, "price": "12345678901234567890.123456789012345678901234567890",
        "ratio": "1.1", "score": "12510357", "name": "naïve 华为云 🚀", "body": 'said "hi"\n',
        "code": "YWIAAA==", "image": base64.b64encode(bytes([0, 255, 128, 1])).decode(),
        "born": (dt.date(1000, 1, 6) - epoch).days * 86_400_000,
        "seen": (dt.date(9999, 12, 31) - epoch).days * 86_400_000 + 86_399_999,
        "stamp": 1_714_979_289_123, "span": -3_020_399_000, "yr": "2024", "doc": '{"a": [1, 2.50]}',
        "kind": "b", "tags": "x,y", "flag": True, "mask": 4095, "fixed": "YWI=",  # the binlog strips BINARY's zeros
    }
    moved = next(m for m in _json_values(dataworks) if m["payload"]["op"] == "UPDATE_AFTER"
                 and m["schema"]["source"]["tableName"] == "items")
    assert moved["payload"]["after"]["dataColumn"]["born"] == (dt.date(9999, 12, 31) - epoch).days * 86_400_000
    nulls = next(m for m in _json_values(dataworks) if m["payload"]["op"] == "DELETE"
                 and m["schema"]["source"]["tableName"] == "items")
    assert nulls["payload"]["before"]["dataColumn"] == {c.name: None for c in ITEMS.columns} | {"id": 2}
    keyless = next(m for m in _json_values(dataworks) if (m["schema"]["source"] or {}).get("tableName") == "log")
    assert keyless["schema"]["primaryKey"] is None


def test_dataworks_sends_no_ddl_and_heartbeats_to_every_partition(dataworks: list[Record]) -> None:
    messages = _json_values(dataworks)
    assert not [m for m in messages if m["payload"]["op"] not in ("INSERT", "UPDATE_BEFOR", "UPDATE_AFTER", "DELETE",
                                                                  "MHEARTBEAT")]
    beats = [r for r in dataworks if json.loads(r.value)["payload"]["op"] == "MHEARTBEAT"]
    assert {r.partition for r in beats} == {0, 1, 2}
    assert sorted({json.loads(r.value)["payload"]["timestamp"]["eventTime"] for r in beats}) == \
        [(T0 + 5) * 1000, (T0 + 10) * 1000]


# ----------------------------------------------------------------------------- DataHub Tuple


@pytest.fixture(scope="module")
def datahub() -> list[Record]:
    return ra.render_datahub_tuple(CAPTURE, DB, "dh", partitions=3, seed=2)


def test_datahub_meta_columns_and_flags(datahub: list[Record]) -> None:
    vendor_meta = (VECTORS / "datahub/tuple_meta_columns_vendor_doc.csv").read_text().splitlines()[0].split(",")
    meta = {"_sequence_id_", "_operation_type_", ra.EXECUTE_TIME, "_source_table_", "_before_image_", "_after_image_"}
    assert set(vendor_meta) - {"_excute_time_"} <= meta
    flags: Counter[tuple[str, str, str]] = Counter()
    for record in _json_values(datahub):
        assert list(record)[:6] == ["_sequence_id_", "_operation_type_", ra.EXECUTE_TIME, "_source_table_",
                                    "_before_image_", "_after_image_"]
        table = record["_source_table_"].split(".")[1]
        assert record["_source_table_"] == f"{DB}.{table}"
        assert set(record) - meta == {c.name for c in {"items": ITEMS, "pairs": PAIRS, "log": LOG}[table].columns}
        assert record[ra.EXECUTE_TIME] % 1000 == 0 and record[ra.EXECUTE_TIME] // 1000 >= T0
        flags[(record["_operation_type_"], record["_before_image_"], record["_after_image_"])] += 1
    assert flags == {("I", "N", "Y"): 7, ("U", "Y", "N"): 2, ("U", "N", "Y"): 2, ("D", "Y", "N"): 2}
    assert _offsets_are_dense(datahub)


def test_datahub_every_row_change_once(datahub: list[Record]) -> None:
    seen: Counter[tuple[str, str, tuple[str | None, ...]]] = Counter()
    pairs: Counter[str] = Counter()
    for record in _json_values(datahub):
        table = record["_source_table_"].split(".")[1]
        side = "before" if record["_before_image_"] == "Y" else "after"
        seen[(table, side, _identity(table, record))] += 1
        pairs[record["_sequence_id_"]] += 1
    assert seen == _expected_images()
    assert sorted(pairs.values()) == [1] * 9 + [2, 2]  # an update's two rows share a sequence id


def test_datahub_values_are_typed(datahub: list[Record]) -> None:
    text = next(r.value for r in datahub if r.value and '"_operation_type_":"I"' in r.value and '"id":1,' in r.value)
    # DECIMAL and DOUBLE as JSON numbers with their exact digits
    assert '"price":12345678901234567890.123456789012345678901234567890,' in text
    assert '"score":1.2510357E7,' in text and '"ratio":1.1,' in text
    record = json.loads(text, parse_float=Decimal)
    epoch = dt.date(1970, 1, 1)
    assert record["stamp"] == 1_714_979_289_123_000  # TIMESTAMP: µs, from DataWorks' ms
    assert record["born"] == (dt.date(1000, 1, 6) - epoch).days * 86_400_000_000
    assert record["span"] == -3_020_399_000_000
    assert record["code"] == "ab\x00\x00" and record["image"] == "\x00\ufffd\ufffd\x01"
    assert record["big"] == 18446744073709551615 and record["yr"] == "2024" and record["tags"] == "x,y"
    assert record["flag"] is True and record["mask"] == 4095 and record["fixed"] == "ab"


def test_datahub_carries_no_heartbeat_and_no_ddl(datahub: list[Record]) -> None:
    assert all(r["_operation_type_"] in ("I", "U", "D") for r in _json_values(datahub))


# ----------------------------------------------------------------------------- DTS Shareplex Json


@pytest.fixture(scope="module")
def shareplex() -> list[Record]:
    return ra.render_shareplex_json(CAPTURE, DB, "sp", partitions=3, seed=3)


def test_shareplex_meta_as_the_doc_example(shareplex: list[Record]) -> None:
    vendor_insert = _vendor_lines("dts_shareplex_json/vendor_doc.ndjson")[0]
    for message in _json_values(shareplex):
        assert list(message["meta"]) == list(vendor_insert["meta"])
        assert set(message) <= {"meta", "data", "key"}
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", message["meta"]["time"])
        assert message["meta"]["idx"] == f"{message['meta']['seq']}/{message['meta']['size']}"
        assert message["meta"]["table"].startswith(f"{DB}.")
    assert _offsets_are_dense(shareplex)


def test_shareplex_every_row_change_once(shareplex: list[Record]) -> None:
    seen: Counter[tuple[str, str, tuple[str | None, ...]]] = Counter()
    for message in _json_values(shareplex):
        table, op = message["meta"]["table"].split(".")[1], message["meta"]["op"]
        if op == "upd":  # after image = key overlaid with data
            seen[(table, "before", _identity(table, message["key"]))] += 1
            seen[(table, "after", _identity(table, message["key"] | message["data"]))] += 1
        elif op != "truncate":
            seen[(table, "after" if op == "ins" else "before", _identity(table, message["data"]))] += 1
    assert seen == _expected_images()


def test_shareplex_updates_send_changed_columns_and_the_before_image(shareplex: list[Record]) -> None:
    messages = _json_values(shareplex)
    update = next(m for m in messages if m["meta"]["op"] == "upd" and m["meta"]["table"] == f"{DB}.items")
    assert update["data"] == {"id": "3", "name": "moved", "born": "9999-12-31"}
    assert update["key"] == {
        "id": "1", "big": "18446744073709551615", "price": "12345678901234567890.123456789012345678901234567890",
        "ratio": "1.1", "score": "1.2510357E7", "name": "naïve 华为云 🚀", "body": 'said "hi"\n', "code": "61620000",
        "image": "00FF8001", "born": "1000-01-01", "seen": "9999-12-31 23:59:59.999999",
        "stamp": "2024-05-06 07:08:09.123456", "span": "-838:59:59", "yr": "2024", "doc": '{"a": [1, 2.50]}',
        "kind": "b", "tags": "x,y", "flag": "1", "mask": "4095", "fixed": "6162"}
    # the two updates of one transaction: one scn and trans, seq 1 and 2 of 2
    same_txn = [m["meta"] for m in messages if m["meta"]["op"] == "upd"]
    assert {(m["scn"], m["trans"], m["size"]) for m in same_txn} == {(same_txn[0]["scn"], "0-1-3", 2)}
    assert sorted(m["seq"] for m in same_txn) == [1, 2]
    truncate = next(m for m in messages if m["meta"]["op"] == "truncate")
    assert set(truncate) == {"meta"} and truncate["meta"]["table"] == f"{DB}.pairs"


def test_shareplex_scn_follows_the_log(shareplex: list[Record]) -> None:
    by_trans = {m["meta"]["trans"]: int(m["meta"]["scn"]) for m in _json_values(shareplex)}
    assert [by_trans[t] for t in sorted(by_trans, key=lambda t: int(t.rsplit("-", 1)[1]))] == sorted(by_trans.values())


# ----------------------------------------------------------------------------- DTS Avro


@pytest.fixture(scope="module")
def dts() -> list[Record]:
    return ra.render_dts_avro(CAPTURE, DB, "dts", partitions=3, seed=4)


def _read_dts(record: Record) -> dict[str, Any]:
    data = base64.b64decode(record.value or "")
    reader = io.BytesIO(data)
    datum = fastavro.schemaless_reader(reader, dts_schemas.schemas()["2020"], None, return_record_name=True)
    assert reader.tell() == len(data)
    return datum


def _dts_in_order(records: list[Record]) -> list[tuple[int, dict[str, Any]]]:
    return [(r.partition, _read_dts(r)) for r in sorted(records, key=lambda r: (r.partition, r.offset))]


def _short(value: Any) -> Any:
    """A union value with its short branch name: ("Integer", {...})."""
    return (value[0].rsplit(".", 1)[1], value[1]) if isinstance(value, tuple) else value


def test_dts_every_row_change_once_between_begin_and_commit(dts: list[Record]) -> None:
    seen: Counter[tuple[str, str, tuple[str | None, ...]]] = Counter()
    for _, datum in _dts_in_order(dts):
        if datum["operation"] not in ("INSERT", "UPDATE", "DELETE"):
            continue
        db, table = datum["objectName"].split(".")
        assert db == DB
        names = [f["name"] for f in datum["fields"]]
        for side in ("before", "after"):
            image = datum[f"{side}Images"]
            if image is not None:
                row = {n: _text(_short(v)) for n, v in zip(names, image, strict=True) if n in IDENTITY[table]}
                seen[(table, side, _identity(table, row))] += 1
    assert seen == _expected_images()
    assert _offsets_are_dense(dts)
    framing = [d["operation"] for p, d in _dts_in_order(dts) if p == 0 and d["operation"] in ("BEGIN", "COMMIT")]
    assert framing == ["BEGIN", "COMMIT"] * 7  # one pair per DML transaction, none around the TRUNCATE


def _text(value: Any) -> str | None:
    if value is None:
        return None
    branch, datum = value
    return datum["value"].decode() if branch == "Character" else datum["value"]


def test_dts_records_carry_ordering_and_key_info(dts: list[Record]) -> None:
    data = [d for _, d in _dts_in_order(dts)]
    for datum in data:
        assert re.fullmatch(r"\d+@3", datum["sourcePosition"]) and re.fullmatch(r"\d+@3", datum["safeSourcePosition"])
        assert datum["source"] == {"sourceType": "MySQL", "version": "11.4.2-MariaDB"}
        assert datum["bornTimestamp"] == datum["sourceTimestamp"] * 1000
    rows = [d for d in data if d["operation"] in ("INSERT", "UPDATE", "DELETE")]
    assert {d["objectName"]: d["tags"]["pk_uk_info"] for d in rows} == {
        f"{DB}.items": '{"PRIMARY":["id"]}', f"{DB}.pairs": '{"PRIMARY":["a","b"]}', f"{DB}.log": "{}"}
    update = next(d for d in rows if d["operation"] == "UPDATE" and d["objectName"] == f"{DB}.items")
    assert update["sourceTxid"] == "102" and update["sourceTimestamp"] == T0 + 2
    ddl = next(d for d in data if d["operation"] == "DDL")
    assert ddl["objectName"] == f"{DB}.pairs" and ddl["fields"] is None and ddl["beforeImages"] is None
    assert ddl["afterImages"] == "TRUNCATE TABLE `lake_db`.`pairs`"
    beats = [(p, d["sourceTimestamp"]) for p, d in _dts_in_order(dts) if d["operation"] == "HEARTBEAT"]
    assert sorted(beats) == [(p, t) for p in range(3) for t in (T0 + 5, T0 + 10)]
    assert sorted({d["id"] for d in data}) == list(range(1, max(d["id"] for d in data) + 1))


def test_dts_values_per_mysql_type(dts: list[Record]) -> None:
    insert = next(d for _, d in _dts_in_order(dts)
                  if d["operation"] == "INSERT" and d["objectName"] == f"{DB}.items"
                  and _short(d["afterImages"][0])[1]["value"] == "1")
    assert [(f["name"], f["dataTypeNumber"]) for f in insert["fields"]] == [
        ("id", 3), ("big", 8), ("price", 246), ("ratio", 4), ("score", 5), ("name", 15), ("body", 252),
        ("code", 15), ("image", 252), ("born", 10), ("seen", 12), ("stamp", 7), ("span", 11), ("yr", 13),
        ("doc", 252), ("kind", 247), ("tags", 248), ("flag", 16), ("mask", 16), ("fixed", 254)]
    no_time = {"hour": None, "minute": None, "second": None, "millis": None}
    no_date = {"year": None, "month": None, "day": None}
    assert insert["beforeImages"] is None
    assert [_short(v) for v in insert["afterImages"]] == [
        ("Integer", {"precision": 10, "value": "1"}),
        ("Integer", {"precision": 20, "value": "18446744073709551615"}),
        ("Decimal", {"value": "12345678901234567890.123456789012345678901234567890", "precision": 65, "scale": 30}),
        ("Float", {"value": 1.100000023841858, "precision": 12, "scale": 31}),
        ("Float", {"value": 12510357.0, "precision": 22, "scale": 31}),
        ("Character", {"charset": "utf8mb4", "value": "naïve 华为云 🚀".encode()}),
        ("BinaryObject", {"type": "TEXT", "value": b'said "hi"\n'}),
        ("Character", {"charset": "binary", "value": b"ab\x00\x00"}),
        ("BinaryObject", {"type": "BLOB", "value": bytes([0, 255, 128, 1])}),
        ("DateTime", {"year": 1000, "month": 1, "day": 1} | no_time),
        ("DateTime", {"year": 9999, "month": 12, "day": 31, "hour": 23, "minute": 59, "second": 59,
                      "millis": 999999}),
        ("Timestamp", {"timestamp": 1_714_979_289, "millis": 123456}),
        ("DateTime", no_date | {"hour": -838, "minute": -59, "second": -59, "millis": 0}),
        ("DateTime", {"year": 2024, "month": None, "day": None} | no_time),
        ("BinaryObject", {"type": "TEXT", "value": b'{"a": [1, 2.50]}'}),  # MariaDB's JSON is LONGTEXT
        ("TextObject", {"type": "ENUM", "value": "b"}),
        ("TextObject", {"type": "SET", "value": "x,y"}),
        ("Integer", {"precision": 1, "value": "1"}),
        ("Integer", {"precision": 12, "value": "4095"}),
        ("Character", {"charset": "binary", "value": b"ab"}),
    ]
    nulls = next(d for _, d in _dts_in_order(dts) if d["operation"] == "DELETE" and d["objectName"] == f"{DB}.items")
    assert nulls["afterImages"] is None and nulls["beforeImages"][1:] == [None] * 19


# ----------------------------------------------------------------------------- DRS Avro


@pytest.fixture(scope="module")
def drs() -> list[Record]:
    return ra.render_drs_avro(CAPTURE, DB, "drs", partitions=3, seed=5)


def _read_drs(record: Record) -> dict[str, Any]:
    schema = drs_schemas.load_schema(drs_schemas.DEFAULT_SCHEMA)
    data = base64.b64decode(record.value or "")
    assert data[:2] == b"\xc3\x01" and data[2:10].hex() == schema.fingerprint
    reader = io.BytesIO(data[10:])
    datum = fastavro.schemaless_reader(reader, schema.parsed, None)
    assert reader.tell() == len(data) - 10
    return datum


def test_drs_every_row_change_once_with_increasing_seqno(drs: list[Record]) -> None:
    data = [_read_drs(r) for r in drs]
    assert sorted(d["seqno"] for d in data) == list(range(1, len(data) + 1))
    seen: Counter[tuple[str, str, tuple[str | None, ...]]] = Counter()
    for datum in sorted(data, key=lambda d: d["seqno"]):
        db, table = datum["tableName"].replace('"', "").split(".")
        assert db == DB
        if datum["operation"] == "DDL":
            assert datum["afterImages"] == [{"value": "TRUNCATE TABLE `lake_db`.`pairs`"}] and datum["fields"] is None
            continue
        names = [f["name"] for f in datum["fields"]]
        assert datum["columnCount"] == len(names)
        for side in ("before", "after"):
            image = datum[f"{side}Images"]
            if image is not None:
                row = {n: v and v["value"] for n, v in zip(names, image, strict=True)}
                seen[(table, side, _identity(table, row))] += 1
    assert seen == _expected_images()
    assert all(re.fullmatch(rf'"{DB}"\."(items|pairs|log)"', r.key or "") for r in drs)
    assert _offsets_are_dense(drs)


def test_drs_values_as_drs_json_writes_them(drs: list[Record]) -> None:
    insert = next(d for d in map(_read_drs, drs) if d["seqno"] == 1)
    assert insert["operation"] == "INSERT" and insert["updateTimestamp"] == T0 * 1000
    assert [f["type"] for f in insert["fields"]][:6] == ["int", "bigint", "decimal", "float", "double", "varchar"]
    assert {f["name"]: v and v["value"] for f, v in zip(insert["fields"], insert["afterImages"], strict=True)} == {
        "id": "1", "big": "18446744073709551615", "price": "12345678901234567890.123456789012345678901234567890",
        "ratio": "1.1", "score": "1.2510357E7", "name": "naïve 华为云 🚀", "body": 'said "hi"\n',
        "code": "[97, 98, 0, 0]", "image": "[0, -1, -128, 1]", "born": "1000-01-01",
        "seen": "9999-12-31 23:59:59.999999", "stamp": "1714979289.123456", "span": "-838:59:59", "yr": "2024",
        "doc": '{"a": [1, 2.50]}', "kind": "b", "tags": "x,y", "flag": "1", "mask": "4095", "fixed": "[97, 98]"}
    assert [f["type"] for f in insert["fields"]][-6:] == ["longtext", "enum", "set", "bit", "bit", "binary"]
    nulls = next(d for d in map(_read_drs, drs) if d["seqno"] == 2)
    assert nulls["afterImages"][1:] == [None] * 19
