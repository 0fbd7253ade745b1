"""tests/realdb/render_canal.py on a small hand-built capture: the field sets of the
vendors' own samples, the value encodings, the partitioning, the ordering fields, and every
row change rendered exactly once. Pure Python; no server, no Spark."""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from collections.abc import Callable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from realdb.delivery import key_partition
from realdb.model import Capture, Column, Event, Row, RowChange, TableSchema
from realdb.render_canal import (
    java_hash_map,
    render_canal_json,
    render_canal_json_dts,
    render_canal_json_legacy,
    render_drs_json,
    render_drs_json_c,
    render_drs_json_postgres,
)
from synth import Record

DB = "lake_a"
PARTS = 3

KINDS = TableSchema("shop", "kinds", (
    Column("id", "int(10) unsigned", False), Column("ti", "tinyint(4)"), Column("bu", "bigint(20) unsigned"),
    Column("dec", "decimal(65,30)"), Column("fl", "float"), Column("dbl", "double"), Column("d", "date"),
    Column("dt6", "datetime(6)"), Column("dt0", "datetime"), Column("ts3", "timestamp(3)"),
    Column("tm", "time"), Column("yr", "year(4)"), Column("bt", "bit(8)"), Column("ch", "char(4)"),
    Column("vc", "varchar(64)"), Column("tx", "text"), Column("js", "json"), Column("bn", "binary(4)"),
    Column("vb", "varbinary(16)"), Column("bl", "blob"), Column("en", "enum('a','b','c')"),
    Column("st", "set('x','y','z')"),
), pk=("id",))
# the key is (order_id, line_no) but line_no comes first in the table
LINES = TableSchema("shop", "lines", (
    Column("line_no", "int(11)", False), Column("order_id", "bigint(20)", False), Column("qty", "int(11)"),
    Column("sku", "varchar(16)"),
), pk=("order_id", "line_no"))
LINES2 = TableSchema("shop", "lines", (*LINES.columns, Column("note", "varchar(8)")), pk=LINES.pk)
NOTES = TableSchema("shop", "notes", (Column("kind", "varchar(8)"), Column("body", "varchar(64)")))

VC = "華為 <a href='x'>&=</a> 🚀"
DEC = Decimal("12345678901234567890123456789012345.123456789012345678901234567890")
K1: Row = {
    "id": 1, "ti": -5, "bu": 2**64 - 1, "dec": DEC, "fl": 1.5, "dbl": 6.02214076e23, "d": dt.date(2023, 3, 23),
    "dt6": dt.datetime(2023, 3, 23, 14, 30, 5, 123456), "dt0": dt.datetime(2023, 3, 23, 14, 30, 5),
    "ts3": dt.datetime(2021, 6, 25, 9, 51, 53, 201000), "tm": -dt.timedelta(hours=838, minutes=59, seconds=59),
    "yr": 2023, "bt": b"\x05", "ch": "ab", "vc": VC, "tx": "line1\nline2\ttab \x00 nul",
    "js": '{"a": [1, 2.50, "ü"]}', "bn": b"\x01\x02\x00\x00", "vb": b"\xff\x00\x00", "bl": b"\x80abc\x00",
    "en": "b", "st": "x,z",
}
K2: Row = {c.name: None for c in KINDS.columns} | {"id": 2}
K3: Row = K1 | {"id": 3_000_000_000, "bu": 5, "dec": Decimal("-0.5"), "fl": 0.1, "dbl": 1e-300,
                "tm": dt.timedelta(0), "en": "a", "st": ""}


def line(order_id: int, line_no: int, **extra: Any) -> Row:
    return {"line_no": line_no, "order_id": order_id, "qty": line_no * 2, "sku": f"s{line_no}"} | extra


def ev(seq: int, ts: int, op: str, schema: TableSchema, rows: Sequence[tuple[Row | None, Row | None]] = (),
       sql: str | None = None) -> Event:
    kind = "ddl" if sql is not None else "rows"
    return Event(kind, "shop", schema.name, op, schema, [RowChange(b, a) for b, a in rows], sql, seq, ts,
                 gtid=f"0-1-{100 + seq}", xid=900 + seq, log_file="mysql-bin.000001", log_pos=4 + 100 * seq)


def mariadb_capture() -> Capture:
    t0 = 1_700_000_000
    k1_updated = K1 | {"vc": "changed"}
    k2_rekeyed = K2 | {"id": 20, "fl": 2.5}
    events = [
        ev(0, t0, "DDL", NOTES, sql="CREATE TABLE `shop`.`notes` (kind varchar(8), body varchar(64))"),
        ev(1, t0 + 1, "INSERT", KINDS, [(None, K1), (None, K2), (None, K3)]),
        ev(2, t0 + 1, "INSERT", LINES, [(None, line(10, n)) for n in range(1, 7)]),
        ev(3, t0 + 2, "UPDATE", KINDS, [(K1, k1_updated), (K2, k2_rekeyed)]),
        ev(4, t0 + 3, "INSERT", NOTES, [(None, {"kind": "a", "body": "n1"}), (None, {"kind": "a", "body": "n2"})]),
        ev(5, t0 + 3, "UPDATE", NOTES, [({"kind": "a", "body": "n1"}, {"kind": "a", "body": "n1b"})]),
        ev(6, t0 + 4, "DELETE", LINES, [(line(10, 1), None), (line(10, 2), None)]),
        ev(7, t0 + 5, "DDL", LINES2, sql="ALTER TABLE lines ADD COLUMN note varchar(8)"),
        ev(8, t0 + 5, "INSERT", LINES2, [(None, line(10, 7, note="x"))]),
        ev(9, t0 + 6, "TRUNCATE", NOTES, sql="TRUNCATE TABLE notes"),
        ev(10, t0 + 7, "DELETE", KINDS, [(K3, None)]),
    ]
    return Capture("mariadb", "11.4.2-MariaDB-log", events, {})


ITEMS = TableSchema("shop", "items", (
    Column("id", "integer", False), Column("price", "numeric(12,4)"), Column("ok", "boolean"), Column("raw", "bytea"),
    Column("at", "timestamp(6) without time zone"), Column("atz", "timestamp(6) with time zone"),
    Column("r", "real"), Column("d", "double precision"), Column("j", "jsonb"), Column("c", "character(3)"),
    Column("v", "character varying(20)"),
), pk=("id",), schema="public")
P1: Row = {"id": 1, "price": Decimal("12.3400"), "ok": True, "raw": b"bytea_data",
           "at": dt.datetime(2021, 12, 16, 12, 31, 49, 344365), "atz": dt.datetime(2014, 7, 2, 6, 14, 0, 742000),
           "r": 10357.0, "d": 1.2510357e7, "j": '{"key1": "value1"}', "c": "g  ", "v": "a<b"}
P2: Row = P1 | {"id": 2, "ok": False, "raw": b"", "d": 1e-300}


def pg_event(seq: int, xid: int, commit_us: int, op: str, rows: list[tuple[Row | None, Row | None]],
             sql: str | None = None) -> Event:
    return Event("ddl" if sql else "rows", "shop", "items", op, ITEMS, [RowChange(b, a) for b, a in rows], sql,
                 seq, commit_us // 1_000_000, commit_us, xid=xid, lsn=0x16B3740 + seq)


def postgres_capture() -> Capture:
    return Capture("postgres", "16.3", [
        pg_event(0, 500, 1_639_626_187_344_365, "INSERT", [(None, P1), (None, P2)]),
        pg_event(1, 501, 1_639_626_190_000_001, "UPDATE", [(P1, P1 | {"price": Decimal("13.0000")})]),
        pg_event(2, 501, 1_639_626_190_000_001, "DELETE", [(P2, None)]),
        pg_event(3, 502, 1_639_626_195_500_000, "DDL", [], sql="ALTER TABLE public.items ADD COLUMN n integer"),
    ], {})


CAPTURE = mariadb_capture()
MYSQL_RENDERERS = {"canal": render_canal_json, "dts": render_canal_json_dts, "dts_legacy": render_canal_json_legacy,
                   "drs": render_drs_json, "drs_c": render_drs_json_c}


def messages(records: list[Record]) -> list[tuple[Record, dict[str, Any]]]:
    return [(r, json.loads(r.value or "")) for r in records]


def render(name: str) -> list[tuple[Record, dict[str, Any]]]:
    return messages(MYSQL_RENDERERS[name](CAPTURE, DB, f"t_{name}", PARTS, seed=3))


def sample_keys(vectors: Path, path: str) -> list[list[str]]:
    return [list(json.loads(line)) for line in (vectors / path).read_text().splitlines() if line.strip()]


def rows_of(message: dict[str, Any], where: str) -> list[dict[str, Any]]:
    return message.get(where) or []


def find_row(found: list[tuple[Record, dict[str, Any]]], table: str, kind: str, where: str,
             match: Callable[[dict[str, Any]], bool]) -> tuple[Record, dict[str, Any], int]:
    hits = [(r, m, i) for r, m in found if m["table"] == table and m["type"] == kind
            for i, row in enumerate(rows_of(m, where)) if match(row)]
    assert len(hits) == 1, hits
    return hits[0]


# --- field sets ------------------------------------------------------------------------------

def test_canal_messages_have_the_flat_message_fields(vectors: Path) -> None:
    flink = set(sample_keys(vectors, "canal_flatmessage/flink_canal_data.ndjson")[0])
    for _, m in render("canal"):
        assert list(m) == sorted(flink | {"gtid"})  # fastjson: alphabetical, nulls written


def test_dts_messages_have_the_doc_example_fields(vectors: Path) -> None:
    old_style, new_style = sample_keys(vectors, "dts_canal_json/vendor_doc.ndjson")
    ddl = set(sample_keys(vectors, "dts_canal_json/vendor_doc_ddl_cleaned.ndjson")[0])
    for name, delete_keys in (("dts", new_style), ("dts_legacy", old_style)):
        for _, m in render(name):
            if m["isDdl"]:
                expected = ddl | {"gtid"}
            elif m["type"] == "DELETE":
                expected = set(delete_keys) | {"gtid"}
            elif m["type"] == "UPDATE":
                expected = set(new_style) | {"gtid", "old"}
            else:
                expected = set(new_style) | {"gtid"}
            if m["table"] == "notes":
                expected -= {"pkNames"}  # no key: null, left out
            assert set(m) == expected, (name, m)


def test_drs_messages_have_the_doc_example_fields_in_order(vectors: Path) -> None:
    keys = sample_keys(vectors, "huawei_drs_json/mysql_update.ndjson")[0]
    for name in ("drs", "drs_c"):
        for _, m in render(name):
            assert list(m) == keys
    pg_keys = sample_keys(vectors, "huawei_drs_json/gaussdb_primary_standby_update.ndjson")[0]
    for _, m in messages(render_drs_json_postgres(postgres_capture(), DB, "t_pg", PARTS)):
        assert list(m) == pg_keys


# --- Canal encodings ------------------------------------------------------------------------

def test_canal_value_text() -> None:
    found = render("canal")
    record, m, i = find_row(found, "kinds", "INSERT", "data", lambda row: row["id"] == "1")
    assert m["data"][i] == {
        "id": "1", "ti": "-5", "bu": "18446744073709551615", "dec": str(DEC), "fl": "1.5", "dbl": "6.02214076E23",
        "d": "2023-03-23", "dt6": "2023-03-23 14:30:05.123456", "dt0": "2023-03-23 14:30:05",
        "ts3": "2021-06-25 09:51:53.201", "tm": "-838:59:59", "yr": "2023", "bt": "5", "ch": "ab", "vc": VC,
        "tx": "line1\nline2\ttab \x00 nul", "js": '{"a": [1, 2.50, "ü"]}',
        "bn": "\x01\x02",  # BINARY(4) loses its trailing zero bytes in the binlog
        "vb": "\xff\x00\x00", "bl": "\x80abc\x00", "en": "2", "st": "5",
    }
    assert "華為" in (record.value or "") and "\\u0000" in (record.value or "")
    _, m3, i3 = find_row(found, "kinds", "INSERT", "data", lambda row: row["id"] == "3000000000")
    assert {k: m3["data"][i3][k] for k in ("dec", "fl", "dbl", "tm", "en", "st")} == {
        "dec": "-0.500000000000000000000000000000", "fl": "0.1", "dbl": "1.0E-300", "tm": "00:00:00",
        "en": "1", "st": "0"}
    _, m2, i2 = find_row(found, "kinds", "INSERT", "data", lambda row: row["id"] == "2")
    assert m2["data"][i2] == {c.name: None for c in KINDS.columns} | {"id": "2"}


def test_canal_types_and_keys() -> None:
    found = render("canal")
    _, m, _ = find_row(found, "kinds", "INSERT", "data", lambda row: row["id"] == "1")
    assert m["mysqlType"]["dec"] == "decimal(65,30)" and m["mysqlType"]["id"] == "int(10) unsigned"
    assert m["mysqlType"]["en"] == "enum('a','b','c')" and m["mysqlType"]["js"] == "longtext"
    # java.sql.Types per value, the event's last row deciding: id 3000000000 overflows INT
    assert {k: m["sqlType"][k] for k in ("id", "bu", "dec", "fl", "dbl", "dt6", "tm", "yr", "bt", "tx", "js",
                                         "bn", "bl", "en", "st")} == {
        "id": -5, "bu": -5, "dec": 3, "fl": 7, "dbl": 8, "dt6": 93, "tm": 92, "yr": 12, "bt": -7, "tx": 2005,
        "js": 2005, "bn": 2004, "bl": 2004, "en": 4, "st": -7}
    _, lines, _ = find_row(found, "lines", "INSERT", "data", lambda row: row["line_no"] == "1")
    assert lines["pkNames"] == ["line_no", "order_id"]  # isKey flags in column order
    _, notes, _ = find_row(found, "notes", "INSERT", "data", lambda row: row["body"] == "n1")
    assert notes["pkNames"] is None


def test_canal_update_old_holds_changed_columns_accumulated_over_the_event() -> None:
    found = render("canal")
    _, m1, i1 = find_row(found, "kinds", "UPDATE", "data", lambda row: row["id"] == "1")
    assert m1["old"][i1] == {"vc": VC}
    _, m2, i2 = find_row(found, "kinds", "UPDATE", "data", lambda row: row["id"] == "20")
    # vc changed only in the first row, yet the second row's old names it (its before NULL)
    assert m2["old"][i2] == {"id": "2", "fl": None, "vc": None}
    _, n, j = find_row(found, "notes", "UPDATE", "data", lambda row: row["body"] == "n1b")
    assert n["old"][j] == {"body": "n1"}


def test_canal_ddl_messages() -> None:
    ddl = [(r, m) for r, m in render("canal") if m["isDdl"]]
    assert [m["type"] for _, m in ddl] == ["CREATE", "ALTER", "TRUNCATE"]
    assert all(r.partition == 0 and m["data"] is None and m["mysqlType"] is None and m["database"] == DB
               for r, m in ddl)
    assert ddl[0][1]["sql"].startswith("CREATE TABLE `lake_a`.`notes`")
    assert ddl[2][1]["sql"] == "TRUNCATE TABLE notes" and ddl[2][1]["table"] == "notes"


def test_canal_ids_are_shared_batch_ids_and_times_increase() -> None:
    found = render("canal")
    ids = [m["id"] for _, m in found]
    assert ids == sorted(ids) and ids[0] == 1 and len(set(ids)) < len(CAPTURE.events)
    assert [m["es"] for _, m in found] == sorted(m["es"] for _, m in found)
    assert all(m["es"] % 1000 == 0 and m["ts"] >= m["es"] and r.timestamp == m["ts"] and r.key is None
               for r, m in found)
    assert [m["ts"] for _, m in found] == sorted(m["ts"] for _, m in found)
    gtids = {m["gtid"] for _, m in found if m["table"] == "kinds" and m["type"] == "INSERT"}
    assert gtids == {"0-1-101"}


# --- partitioning ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["canal", "dts", "dts_legacy", "drs", "drs_c"])
def test_key_changing_update_goes_to_the_new_key_partition(name: str) -> None:
    where = "old" if name == "dts_legacy" else "data"
    record, _, _ = find_row(render(name), "kinds", "UPDATE", where, lambda row: row["id"] == "20")
    assert record.partition == key_partition(KINDS, {"id": 20}, PARTS)
    assert key_partition(KINDS, {"id": 20}, PARTS) != key_partition(KINDS, {"id": 2}, PARTS)


@pytest.mark.parametrize("name", ["canal", "drs", "drs_c"])
def test_rows_of_one_event_are_split_by_key(name: str) -> None:
    inserted = [line(10, n) for n in range(1, 7)]
    assert len({key_partition(LINES, row, PARTS) for row in inserted}) > 1
    parts = [(r, m) for r, m in render(name) if m["table"] == "lines" and m["type"] == "INSERT"
             and any(row["order_id"] == "10" and row.get("note") is None for row in m["data"])]
    assert len(parts) == len({key_partition(LINES, row, PARTS) for row in inserted})
    assert len({m["id"] for _, m in parts}) == 1  # one event: one id
    for record, m in parts:
        for row in m["data"]:
            raw = line(int(row["order_id"]), int(row["line_no"]))
            assert record.partition == key_partition(LINES, raw, PARTS)


# --- every row change exactly once ------------------------------------------------------------

def identity(table: str, row: dict[str, Any]) -> tuple[str, ...]:
    columns = {"kinds": ("id",), "lines": ("order_id", "line_no"), "notes": ("body",)}[table]
    return tuple(str(row[c]) for c in columns)


def rendered_rows(name: str) -> Counter[tuple[Any, ...]]:
    """(table, type, identity of the row that places it) per rendered row."""
    out: Counter[tuple[Any, ...]] = Counter()
    for _, m in render(name):
        if m["isDdl"]:
            continue
        if (name == "dts_legacy" and m["type"] != "INSERT") or (name == "drs" and m["type"] == "DELETE"):
            where = "old"
        else:
            where = "data"
        out.update((m["table"], m["type"], identity(m["table"], row)) for row in rows_of(m, where))
    return out


@pytest.mark.parametrize("name", ["canal", "dts", "dts_legacy", "drs", "drs_c"])
def test_every_row_change_appears_exactly_once(name: str) -> None:
    expected: Counter[tuple[Any, ...]] = Counter()
    for event in CAPTURE.events:
        for change in event.rows:
            placing = change.after if change.after is not None else change.before
            assert placing is not None
            expected[(event.table, event.op, identity(event.table, placing))] += 1
    assert rendered_rows(name) == expected


# --- DTS ------------------------------------------------------------------------------------

def test_dts_images_types_and_offsets() -> None:
    found = render("dts")
    assert all(len(m.get("data") or m.get("old") or [None]) == 1 for _, m in found)  # one row each
    ids = [m["id"] for _, m in found]
    assert ids == sorted(set(ids))
    _, update, _ = find_row(found, "kinds", "UPDATE", "data", lambda row: row["id"] == "1")
    assert update["old"][0]["vc"] == VC and update["old"][0]["dec"] == str(DEC)  # full before image
    assert update["data"][0]["vc"] == "changed" and update["data"][0]["en"] == "b"  # ENUM as its label
    assert update["mysqlType"]["dec"] == "decimal" and update["mysqlType"]["dt6"] == "datetime"
    assert update["mysqlType"]["id"] == "int(10) unsigned" and update["mysqlType"]["vc"] == "varchar(64)"
    assert update["gtid"] == "0-1-103"
    _, delete, _ = find_row(found, "kinds", "DELETE", "data", lambda row: row["id"] == "3000000000")
    assert "old" not in delete
    ddl = [m for _, m in found if m["isDdl"]]
    assert [m["type"] for m in ddl] == ["DDL"] * 3 and ddl[0]["sql"].startswith("CREATE TABLE `lake_a`.")


def test_dts_legacy_swaps_images() -> None:
    found = render("dts_legacy")
    _, update, _ = find_row(found, "kinds", "UPDATE", "old", lambda row: row["id"] == "1")
    assert update["data"][0]["vc"] == VC and update["old"][0]["vc"] == "changed"
    assert set(update["data"][0]) == set(update["old"][0]) == {c.name for c in KINDS.columns}
    _, delete, _ = find_row(found, "lines", "DELETE", "old", lambda row: row["line_no"] == "2")
    assert "data" not in delete


# --- DRS ------------------------------------------------------------------------------------

def test_drs_value_text_and_types() -> None:
    found = render("drs")
    record, m, i = find_row(found, "kinds", "INSERT", "data", lambda row: row["id"] == "1")
    row = m["data"][i]
    assert list(row) == list(java_hash_map(row))  # a java.util.HashMap's order
    assert list(m["mysqlType"]) == list(row) and list(m["sqlType"]) == list(row)
    assert {k: row[k] for k in ("bn", "vb", "bl", "ts3", "dt6", "dbl", "fl", "dec", "en", "st", "tm", "bt")} == {
        "bn": "[1, 2]", "vb": "[-1, 0, 0]", "bl": "[-128, 97, 98, 99, 0]", "ts3": "1624614713.201",
        "dt6": "2023-03-23 14:30:05.123456", "dbl": "6.02214076E23", "fl": "1.5", "dec": str(DEC), "en": "b",
        "st": "x,z", "tm": "-838:59:59", "bt": "5"}
    assert row["vc"] == VC and "\\u003ca href\\u003d\\u0027x\\u0027\\u003e\\u0026\\u003d" in (record.value or "")
    assert m["mysqlType"]["dec"] == "decimal" and m["mysqlType"]["js"] == "longtext"
    assert {k: m["sqlType"][k] for k in ("id", "dec", "fl", "dbl", "dt6", "ts3", "vc", "tx", "bn", "vb", "bl")} == {
        "id": 4, "dec": 3, "fl": 6, "dbl": 8, "dt6": 94, "ts3": 93, "vc": 12, "tx": -1, "bn": -2, "vb": -3,
        "bl": 2004}


def test_drs_images_ids_and_times() -> None:
    found = render("drs")
    _, update, i = find_row(found, "kinds", "UPDATE", "data", lambda row: row["id"] == "20")
    assert update["old"][i]["id"] == "2" and len(update["old"][i]) == len(KINDS.columns)  # full before image
    _, delete, _ = find_row(found, "kinds", "DELETE", "old", lambda row: row["id"] == "3000000000")
    assert delete["data"] is None and delete["pkNames"] == ["id"]
    ddl = [m for _, m in found if m["isDdl"]]
    assert [m["type"] for m in ddl] == ["DDL"] * 3 and ddl[1]["sql"] == "ALTER TABLE lines ADD COLUMN note varchar(8)"
    ids = [m["id"] for _, m in found]
    assert ids == sorted(ids) and len(set(ids)) == len(CAPTURE.events)  # one id per event
    assert all(m["es"] % 1000 == 0 and m["ts"] >= m["es"] for _, m in found)
    notes = [m for _, m in found if m["table"] == "notes" and not m["isDdl"]]
    assert all(m["pkNames"] is None for m in notes)


def test_drs_json_c_puts_deleted_rows_in_data_and_timestamps_as_text() -> None:
    found = render("drs_c")
    _, delete, _ = find_row(found, "kinds", "DELETE", "data", lambda row: row["id"] == "3000000000")
    assert delete["old"] is None and delete["data"][0]["ts3"] == "2021-06-25 09:51:53.201"


def test_drs_postgres() -> None:
    capture = postgres_capture()
    found = messages(render_drs_json_postgres(capture, DB, "t_pg", PARTS, seed=5))
    _, insert, i = find_row(found, "items", "INSERT", "data", lambda row: row["id"] == "1")
    assert insert["data"][i] == {
        "id": "1", "price": "12.3400", "ok": "true", "raw": "62797465615f64617461", "at": "2021-12-16 12:31:49.344365",
        "atz": "2014-07-02 06:14:00.742+00", "r": "10357", "d": "12510357", "j": '{"key1": "value1"}', "c": "g  ",
        "v": "a<b"}
    assert list(insert["data"][i]) == list(java_hash_map(insert["data"][i]))
    assert insert["columnType"]["j"] == "json" and insert["columnType"]["at"] == "timestamp without time zone"
    assert insert["columnType"]["price"] == "numeric" and insert["sqlType"]["at"] == 16
    assert insert["sqlType"]["raw"] == 15 and insert["sqlType"]["ok"] == 8
    assert (insert["dbType"], insert["schema"], insert["opType"], insert["old"]) == ("PostgreSQL", "public",
                                                                                      "INSERT", None)
    _, p2, j = find_row(found, "items", "INSERT", "data", lambda row: row["id"] == "2")
    assert (p2["data"][j]["raw"], p2["data"][j]["ok"], p2["data"][j]["d"]) == ("", "false", "1e-300")
    _, update, _ = find_row(found, "items", "UPDATE", "data", lambda row: row["id"] == "1")
    assert update["old"][0]["price"] == "12.3400" and len(update["old"][0]) == len(ITEMS.columns)
    _, delete, _ = find_row(found, "items", "DELETE", "old", lambda row: row["id"] == "2")
    assert delete["data"] is None
    # es: the previous transaction's commit, whole seconds; the first has its own
    assert (insert["es"], update["es"], delete["es"]) == (1_639_626_187_000,) * 3
    ddl = [m for _, m in found if m["isDdl"]]
    assert ddl[0]["es"] == 1_639_626_190_000 and ddl[0]["type"] == ddl[0]["opType"] == "DDL"
    ids = [m["id"] for _, m in found]
    assert ids == sorted(ids) and len(set(ids)) == len(capture.events)  # one id per event
