"""The Debezium and Huawei CDL renderers of the real-database harness, on small hand-built
captures: field sets against the vendor examples (vectors/), each value encoding, tombstones,
key changes, partitioning, and every captured row change rendered exactly once."""

from __future__ import annotations

import base64
import datetime as dt
import json
from collections import defaultdict
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from realdb.model import Capture, Column, Event, RowChange, TableSchema
from realdb.render_debezium import (
    render_cdl_debezium,
    render_cdl_json,
    render_debezium_mysql,
    render_debezium_postgres,
)
from synth import Record

TOPIC = "cdc.debezium"
BIG_DECIMAL = Decimal("-12345678901234567890123456789012345.123456789012345678901234567890")

# ---------------------------------------------------------------------------------------------
# A MariaDB capture: keyed, composite-key and keyless tables, every value type.

ALL_TYPES = TableSchema("shop", "all_types", (
    Column("id", "int(11)", False), Column("ti", "tinyint(4)"), Column("su", "smallint(5) unsigned"),
    Column("iu", "int(10) unsigned"), Column("bu", "bigint(20) unsigned"), Column("f", "float"),
    Column("d", "double"), Column("dec", "decimal(65,30)"), Column("b1", "bit(1)"), Column("b12", "bit(12)"),
    Column("ch", "char(3)"), Column("vc", "varchar(20)"), Column("tx", "text"), Column("bin", "binary(4)"),
    Column("vb", "varbinary(8)"), Column("bl", "blob"), Column("dt", "date"), Column("dtm", "datetime"),
    Column("dtm3", "datetime(3)"), Column("dtm6", "datetime(6)"), Column("tm", "time"), Column("tm6", "time(6)"),
    Column("ts", "timestamp"), Column("ts6", "timestamp(6)"), Column("yr", "year(4)"),
    Column("en", "enum('a','b','c')"), Column("st", "set('x','y','z')"), Column("js", "json"),
), ("id",))
PAIRS = TableSchema("shop", "pairs", (Column("a", "int(11)", False), Column("b", "varchar(10)", False),
                                      Column("v", "int(11)")), ("a", "b"))
LOG = TableSchema("shop", "log", (Column("x", "int(11)"), Column("y", "text")))
LOG2 = TableSchema("shop", "log", (*LOG.columns, Column("z", "decimal(5,2)")))

EXTREMES = {
    "id": 1, "ti": -128, "su": 65535, "iu": 4294967295, "bu": 18446744073709551615, "f": 3.14,
    "d": 6.02214076e23, "dec": BIG_DECIMAL, "b1": 1, "b12": 0xABC, "ch": "日本語",
    "vc": "naïve 😀", "tx": 'line1\nline2 "q" \\ \x01', "bin": b"ab\x00\x00", "vb": b"\x00\xff\x00\x00",
    "bl": bytes(range(256)), "dt": dt.date(9999, 12, 31), "dtm": dt.datetime(1000, 1, 1),
    "dtm3": dt.datetime(2024, 2, 29, 12, 34, 56, 789000), "dtm6": dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
    "tm": -dt.timedelta(hours=838, minutes=59, seconds=59), "tm6": dt.timedelta(hours=838, minutes=59, seconds=59),
    "ts": dt.datetime(1970, 1, 1, 0, 0, 1), "ts6": dt.datetime(2038, 1, 19, 3, 14, 7, 999999), "yr": 2155,
    "en": "b", "st": "x,z", "js": '{"a": [1, 2.50, "é"], "b": null}',
}
NULLS = {c.name: None for c in ALL_TYPES.columns} | {"id": 2, "dt": dt.date(1000, 1, 1)}
ZEROS = {c.name: None for c in ALL_TYPES.columns} | {"id": 3, "dec": Decimal("0E-30"), "f": 0.0, "tm": dt.timedelta(),
                                                     "yr": 0, "dt": dt.date(69, 12, 31), "d": 5e-324}


def _rows(op: str, *pairs: tuple[dict | None, dict | None]) -> list[RowChange]:
    return [RowChange(before, after) for before, after in pairs]


def _pair(a: int, b: str, v: int) -> dict:
    return {"a": a, "b": b, "v": v}


def _mariadb_events() -> list[Event]:
    spec: list[tuple[str, str, str, TableSchema, list[RowChange], str | None]] = [
        ("ddl", "all_types", "DDL", ALL_TYPES, [], "CREATE TABLE all_types (id int PRIMARY KEY)"),
        ("rows", "all_types", "INSERT", ALL_TYPES, _rows("I", (None, EXTREMES), (None, NULLS), (None, ZEROS)), None),
        ("rows", "pairs", "INSERT", PAIRS, _rows("I", (None, _pair(1, "x", 10)), (None, _pair(2, "y", 20))), None),
        ("rows", "pairs", "UPDATE", PAIRS, _rows("U", (_pair(1, "x", 10), _pair(1, "x", 11)),
                                                 (_pair(2, "y", 20), _pair(3, "y", 20))), None),
        ("rows", "all_types", "DELETE", ALL_TYPES, _rows("D", (ZEROS, None)), None),
        ("rows", "log", "INSERT", LOG, _rows("I", (None, {"x": 1, "y": "a"}), (None, {"x": 1, "y": "a"})), None),
        ("rows", "log", "UPDATE", LOG, _rows("U", ({"x": 1, "y": "a"}, {"x": 2, "y": "b"})), None),
        ("rows", "log", "DELETE", LOG, _rows("D", ({"x": 1, "y": "a"}, None)), None),
        ("ddl", "log", "DDL", LOG2, [], "ALTER TABLE `shop`.`log` ADD COLUMN z decimal(5,2)"),
        ("rows", "log", "INSERT", LOG2, _rows("I", (None, {"x": 3, "y": "c", "z": Decimal("1.50")})), None),
        ("ddl", "log", "TRUNCATE", LOG2, [], "TRUNCATE TABLE log"),
        ("rows", "all_types", "UPDATE", ALL_TYPES, _rows("U", (EXTREMES, EXTREMES | {"vc": "changed"})), None),
    ]
    return [Event(kind, "shop", table, op, schema, rows, sql, seq=seq, ts=1_700_000_000 + seq,  # type: ignore[arg-type]
                  gtid=f"0-1-{100 + seq}", xid=900 + seq, log_file="mysql-bin.000001", log_pos=1000 + 500 * seq)
            for seq, (kind, table, op, schema, rows, sql) in enumerate(spec)]


MARIADB = Capture("mariadb", "11.4.2-MariaDB", _mariadb_events(), {
    ("shop", "all_types"): (ALL_TYPES, [EXTREMES | {"vc": "changed"}, NULLS]),
    ("shop", "pairs"): (PAIRS, [_pair(1, "x", 11), _pair(3, "y", 20)]),
    ("shop", "log"): (LOG2, []),
})

# ---------------------------------------------------------------------------------------------
# A PostgreSQL capture (REPLICA IDENTITY FULL on the first update, a key-only delete image).

THINGS = TableSchema("appdb", "things", (
    Column("id", "integer", False), Column("n38", "numeric(38,10)"), Column("nv", "numeric"),
    Column("t3", "timestamp(3) without time zone"), Column("t6", "timestamp without time zone"),
    Column("tz", "timestamp with time zone"), Column("d", "date"), Column("tm", "time without time zone"),
    Column("by", "bytea"), Column("j", "json"), Column("jb", "jsonb"), Column("ok", "boolean"),
    Column("r", "real"), Column("dp", "double precision"), Column("tx", "text"), Column("u", "uuid"),
    Column("qty", "bigint", False),
), ("id",), "public")
THING = {"id": 1, "n38": Decimal("-1234567890123456789012345678.0123456789"), "nv": Decimal("12.3400"),
         "t3": dt.datetime(2024, 1, 2, 3, 4, 5, 678000), "t6": dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
         "tz": dt.datetime(2038, 1, 19, 3, 14, 7, 999999, tzinfo=dt.UTC), "d": dt.date(1000, 1, 1),
         "tm": dt.timedelta(hours=23, minutes=59, seconds=59, microseconds=999999), "by": b"\x00\x01\x00\x00",
         "j": '{"k": [1, 2]}', "jb": '{"k": [1, 2]}',
         "ok": True, "r": 0.1, "dp": 6.02214076e23, "tx": "ünï", "u": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
         "qty": 5}
THING2 = {c.name: None for c in THINGS.columns} | {"id": 2, "qty": 7, "tz": dt.datetime(2000, 1, 1, 0, 0)}


def _pg_events() -> list[Event]:
    updated = THING | {"qty": 6, "nv": Decimal("1200")}
    spec = [("INSERT", [RowChange(None, THING), RowChange(None, THING2)]),
            ("UPDATE", [RowChange(THING, updated)]),
            ("UPDATE", [RowChange(updated, updated | {"id": 10})]),
            ("DELETE", [RowChange({"id": 2}, None)]),
            ("TRUNCATE", [])]
    return [Event("rows" if op != "TRUNCATE" else "ddl", "appdb", "things", op, THINGS, rows,  # type: ignore[arg-type]
                  "TRUNCATE things" if op == "TRUNCATE" else None, seq=seq, ts=1_700_000_100 + seq,
                  ts_us=(1_700_000_100 + seq) * 1_000_000 + 123_456, xid=500 + seq, lsn=1000 + 100 * seq)
            for seq, (op, rows) in enumerate(spec)]


POSTGRES = Capture("postgres", "16.3", _pg_events(), {("public", "things"): (THINGS, [THING | {"id": 10, "qty": 6}])})

# ---------------------------------------------------------------------------------------------
# Helpers


def _value(record: Record) -> Any:
    return None if record.value is None else json.loads(record.value)


def _payload(record: Record, schemas: bool = True) -> Any:
    value = _value(record)
    return value["payload"] if schemas and value is not None else value


def _data(records: list[Record], topic: str = TOPIC) -> list[Record]:
    return [r for r in records if r.topic == topic]


def _envelopes(records: list[Record], schemas: bool = True) -> list[dict]:
    return [_payload(r, schemas) for r in _data(records) if r.value is not None]


def _column_schema(record: Record, name: str) -> dict:
    value_schema = _value(record)["schema"]["fields"][1]  # after
    return next(f for f in value_schema["fields"] if f["field"] == name)


def _decimal(b64: str, scale: int) -> Decimal:
    return Decimal(f"{int.from_bytes(base64.b64decode(b64), 'big', signed=True)}E-{scale}")


def _vector(vectors: Path, path: str, line: int = 0) -> dict:
    return json.loads((vectors / path).read_text(encoding="utf-8").splitlines()[line])


@pytest.fixture(scope="module")
def mysql_records() -> list[Record]:
    return render_debezium_mysql(MARIADB, "shopx", TOPIC, seed=3, schemas=True)


@pytest.fixture(scope="module")
def pg_records() -> list[Record]:
    return render_debezium_postgres(POSTGRES, "appx", TOPIC, seed=3, schemas=True)


def _by_after_id(records: list[Record], op: str, row_id: int) -> Record:
    return next(r for r in _data(records) if r.value and _payload(r)["op"] == op
                and (_payload(r)["after"] or {}).get("id") == row_id)


# ---------------------------------------------------------------------------------------------
# Debezium MariaDB


def _expected_ops(event: Event, change: RowChange) -> list[str]:
    key = event.schema.pk if event.schema else ()
    if event.op == "INSERT":
        return ["c"]
    if event.op == "DELETE":
        return ["d"]
    assert change.before is not None and change.after is not None
    moved = key and any(change.before[c] != change.after[c] for c in key)
    return ["d", "c"] if moved else ["u"]


@pytest.mark.parametrize("schemas", [True, False])
def test_every_row_change_appears_exactly_once(schemas: bool) -> None:
    records = render_debezium_mysql(MARIADB, "shopx", TOPIC, seed=1, schemas=schemas)
    seen: dict[tuple[int, int], list[dict]] = defaultdict(list)
    for env in _envelopes(records, schemas):
        if env["op"] != "t":
            seen[(env["source"]["pos"], env["source"]["row"])].append(env)
    expected = {(e.log_pos, i): (e, ch) for e in MARIADB.events if e.kind == "rows" for i, ch in enumerate(e.rows)}
    assert set(seen) == set(expected)
    for position, (event, change) in expected.items():
        envs = seen[position]
        assert [e["op"] for e in envs] == _expected_ops(event, change)
        assert all(e["source"]["table"] == event.table for e in envs)
        if envs[0]["op"] in ("u", "d") and event.table == "pairs":
            assert envs[0]["before"] == change.before
        if envs[-1]["op"] in ("c", "u") and event.table == "pairs":
            assert envs[-1]["after"] == change.after


def test_tombstones_follow_deletes_and_key_changes(mysql_records: list[Record]) -> None:
    by_partition: dict[int, list[Record]] = defaultdict(list)
    for r in _data(mysql_records):
        by_partition[r.partition].append(r)
    deletes = 0
    for part in by_partition.values():
        for this, following in zip(part, [*part[1:], None], strict=True):
            if this.value is None or _payload(this)["op"] != "d":
                continue
            deletes += 1
            if _payload(this)["source"]["table"] == "log":  # keyless: no key, no tombstone
                assert this.key is None and (following is None or following.value is not None)
            else:
                assert following is not None and following.value is None and following.key == this.key
    assert deletes == 3  # the pairs key change, the all_types delete, the log delete
    change = [_payload(r) for r in _data(mysql_records) if r.value and _payload(r)["source"]["pos"] == 2500]
    assert [c["op"] for c in change] == ["u", "d", "c"]
    assert change[1]["before"] == {"a": 2, "b": "y", "v": 20} and change[2]["after"] == {"a": 3, "b": "y", "v": 20}


def test_partitions_follow_the_key(mysql_records: list[Record]) -> None:
    partition_of: dict[str, set[int]] = defaultdict(set)
    for r in _data(mysql_records):
        if r.key is not None:
            partition_of[r.key].add(r.partition)
    assert partition_of and all(len(p) == 1 for p in partition_of.values())
    assert len({p for ps in partition_of.values() for p in ps}) > 1
    offsets: dict[tuple[str, int], list[int]] = defaultdict(list)
    for r in mysql_records:
        offsets[(r.topic, r.partition)].append(r.offset)
    assert all(o == list(range(len(o))) for o in offsets.values())


def test_key_is_the_primary_key_struct(mysql_records: list[Record]) -> None:
    record = _by_after_id(mysql_records, "c", 1)
    key = json.loads(record.key or "")
    assert key["payload"] == {"id": 1}
    assert key["schema"] == {"type": "struct", "fields": [{"type": "int32", "optional": False, "field": "id"}],
                             "optional": False, "name": "realdb.shopx.all_types.Key"}
    plain = render_debezium_mysql(MARIADB, "shopx", TOPIC, seed=3, schemas=False)
    assert {r.key for r in _data(plain) if r.key and '"a"' in r.key} == {'{"a":1,"b":"x"}', '{"a":2,"b":"y"}',
                                                                         '{"a":3,"b":"y"}'}


def test_mariadb_value_encodings(mysql_records: list[Record]) -> None:
    record = _by_after_id(mysql_records, "c", 1)
    after = _payload(record)["after"]
    assert (after["ti"], after["su"], after["iu"]) == (-128, 65535, 4294967295)
    assert after["bu"] == -1  # bigint.unsigned.handling.mode=long: the binlog's signed long
    assert '"f":3.14,' in (record.value or "") and '"d":6.02214076E23,' in (record.value or "")
    assert _decimal(after["dec"], 30) == BIG_DECIMAL
    assert after["b1"] is True and base64.b64decode(after["b12"]) == b"\xbc\x0a"  # little-endian Bits
    assert (after["ch"], after["vc"], after["tx"]) == (EXTREMES["ch"], EXTREMES["vc"], EXTREMES["tx"])
    assert "\\u0001" in (record.value or "") and "日本語" in (record.value or "")
    assert base64.b64decode(after["bin"]) == b"ab\x00\x00" and base64.b64decode(after["vb"]) == b"\x00\xff\x00\x00"
    assert base64.b64decode(after["bl"]) == bytes(range(256))
    assert after["dt"] == 2932896 and after["dtm"] == -30610224000000 and after["dtm3"] == 1709210096789
    assert after["dtm6"] == 253402300799999999
    assert (after["tm"], after["tm6"]) == (-3020399000000, 3020399000000)
    assert (after["ts"], after["ts6"]) == ("1970-01-01T00:00:01Z", "2038-01-19T03:14:07.999999Z")
    assert (after["yr"], after["en"], after["st"], after["js"]) == (2155, "b", "x,z", EXTREMES["js"])
    nulls = _payload(_by_after_id(mysql_records, "c", 2))["after"]
    assert nulls["dt"] == -354285 and all(v is None for k, v in nulls.items() if k not in ("id", "dt"))
    zeros = _payload(_by_after_id(mysql_records, "c", 3))["after"]
    text = _by_after_id(mysql_records, "c", 3).value or ""
    assert zeros["dec"] == "AA==" and '"f":0.0,' in text and '"d":4.9E-324,' in text  # Java's Double.MIN_VALUE
    assert zeros["yr"] == 1900  # YEAR 0000 comes out of the binlog as 1900
    assert zeros["dt"] == (dt.date(2069, 12, 31) - dt.date(1970, 1, 1)).days  # two-digit year adjuster


def test_mariadb_connect_schemas(mysql_records: list[Record]) -> None:
    record = _by_after_id(mysql_records, "c", 1)
    names = {c.name: (_column_schema(record, c.name)["type"], _column_schema(record, c.name).get("name"))
             for c in ALL_TYPES.columns}
    assert names == {
        "id": ("int32", None), "ti": ("int16", None), "su": ("int32", None), "iu": ("int64", None),
        "bu": ("int64", None), "f": ("float", None), "d": ("double", None),
        "dec": ("bytes", "org.apache.kafka.connect.data.Decimal"), "b1": ("boolean", None),
        "b12": ("bytes", "io.debezium.data.Bits"), "ch": ("string", None), "vc": ("string", None),
        "tx": ("string", None), "bin": ("bytes", None), "vb": ("bytes", None), "bl": ("bytes", None),
        "dt": ("int32", "io.debezium.time.Date"), "dtm": ("int64", "io.debezium.time.Timestamp"),
        "dtm3": ("int64", "io.debezium.time.Timestamp"), "dtm6": ("int64", "io.debezium.time.MicroTimestamp"),
        "tm": ("int64", "io.debezium.time.MicroTime"), "tm6": ("int64", "io.debezium.time.MicroTime"),
        "ts": ("string", "io.debezium.time.ZonedTimestamp"), "ts6": ("string", "io.debezium.time.ZonedTimestamp"),
        "yr": ("int32", "io.debezium.time.Year"), "en": ("string", "io.debezium.data.Enum"),
        "st": ("string", "io.debezium.data.EnumSet"), "js": ("string", None),
    }
    assert _column_schema(record, "dec") == {"type": "bytes", "optional": True,
                                             "name": "org.apache.kafka.connect.data.Decimal", "version": 1,
                                             "parameters": {"scale": "30", "connect.decimal.precision": "65"},
                                             "field": "dec"}
    assert _column_schema(record, "en")["parameters"] == {"allowed": "a,b,c"}
    assert _column_schema(record, "b12")["parameters"] == {"length": "12"}
    assert _column_schema(record, "id")["optional"] is False
    envelope = _value(record)["schema"]
    assert (envelope["name"], envelope["version"]) == ("realdb.shopx.all_types.Envelope", 2)
    assert [f["field"] for f in envelope["fields"]] == ["before", "after", "source", "transaction", "op", "ts_ms",
                                                        "ts_us", "ts_ns"]


def test_schemas_false_is_the_same_payload() -> None:
    with_schemas = render_debezium_mysql(MARIADB, "shopx", TOPIC, seed=5, schemas=True)
    without = render_debezium_mysql(MARIADB, "shopx", TOPIC, seed=5, schemas=False)
    assert len(with_schemas) == len(without)
    for a, b in zip(with_schemas, without, strict=True):
        assert (a.topic, a.partition, a.offset) == (b.topic, b.partition, b.offset)
        assert _payload(a) == _value(b)
        assert a.key is None or json.loads(a.key)["payload"] == json.loads(b.key or "")


def test_mariadb_source_block(mysql_records: list[Record], vectors: Path) -> None:
    envs = _envelopes(mysql_records)
    source = envs[0]["source"]
    assert list(source) == ["version", "connector", "name", "ts_ms", "snapshot", "db", "sequence", "ts_us",
                            "ts_ns", "table", "server_id", "gtid", "file", "pos", "row", "thread", "query"]
    documented = _vector(vectors, "debezium_json/debezium_docs_mysql_examples.ndjson", 4)["payload"]["source"]
    assert set(documented) <= set(source)
    assert source | {"ts_ms": 0, "ts_us": 0, "ts_ns": 0} == {
        "version": "2.7.4.Final", "connector": "mariadb", "name": "realdb", "ts_ms": 0, "snapshot": "false",
        "db": "shopx", "sequence": None, "ts_us": 0, "ts_ns": 0, "table": "all_types", "server_id": 1,
        "gtid": "0-1-101", "file": "mysql-bin.000001", "pos": 1500, "row": 0, "thread": None, "query": None}
    assert source["ts_ms"] == 1_700_000_001_000 and source["ts_ns"] == source["ts_ms"] * 1_000_000
    assert [e["source"]["row"] for e in envs[:3]] == [0, 1, 2]
    assert all(e["ts_ms"] >= e["source"]["ts_ms"] and e["transaction"] is None for e in envs)


def test_schema_change_topic(mysql_records: list[Record], vectors: Path) -> None:
    changes = [r for r in mysql_records if r.topic == f"{TOPIC}.schema-changes"]
    payloads = [_payload(r) for r in changes]
    assert [p["ddl"] for p in payloads] == ["CREATE TABLE all_types (id int PRIMARY KEY)",
                                            "ALTER TABLE `shopx`.`log` ADD COLUMN z decimal(5,2)",
                                            "TRUNCATE TABLE log"]
    documented = _vector(vectors, "debezium_json/debezium_docs_mysql_examples.ndjson")["payload"]
    assert set(documented) <= set(payloads[0])
    assert all(r.partition == 0 and json.loads(r.key or "")["payload"] == {"databaseName": "shopx"} for r in changes)
    alter = payloads[1]["tableChanges"]
    assert [(c["type"], c["id"]) for c in alter] == [("ALTER", '"shopx"."log"')]
    assert [(c["name"], c["typeName"], c["jdbcType"], c["length"], c["scale"], c["position"])
            for c in alter[0]["table"]["columns"]] == [("x", "INT", 4, 11, None, 1), ("y", "TEXT", 12, None, None, 2),
                                                        ("z", "DECIMAL", 3, 5, 2, 3)]
    assert set(documented["tableChanges"][0]["table"]["columns"][0]) <= set(alter[0]["table"]["columns"][0])
    create = payloads[0]["tableChanges"][0]["table"]
    assert create["primaryKeyColumnNames"] == ["id"]
    enum = next(c for c in create["columns"] if c["name"] == "en")
    assert (enum["typeName"], enum["length"], enum["enumValues"]) == ("ENUM", 1, ["a", "b", "c"])
    truncate = payloads[2]
    assert truncate["tableChanges"] == [] and truncate["source"]["table"] == "log"
    assert truncate["source"]["row"] == 0 and payloads[0]["source"]["table"] == "all_types"
    assert _value(changes[0])["schema"]["name"] == "io.debezium.connector.mariadb.SchemaChangeValue"


def test_truncate_is_op_t_with_a_null_key(mysql_records: list[Record]) -> None:
    truncates = [r for r in _data(mysql_records) if r.value and _payload(r)["op"] == "t"]
    assert len(truncates) == 1 and truncates[0].key is None
    env = _payload(truncates[0])
    assert (env["before"], env["after"], env["source"]["table"]) == (None, None, "log")
    skipped = render_debezium_mysql(MARIADB, "shopx", TOPIC, schemas=False, emit_truncate=False)
    assert not [r for r in _data(skipped) if r.value and _value(r)["op"] == "t"]


def test_heartbeats_on_their_own_topic() -> None:
    records = render_debezium_mysql(MARIADB, "shopx", TOPIC, schemas=False, heartbeat_every=4)
    beats = [r for r in records if r.topic == "__debezium-heartbeat.realdb"]
    assert len(beats) == 3 and all(r.partition == 0 for r in beats)
    assert all(set(_value(r)) == {"ts_ms"} and json.loads(r.key or "") == {"serverName": "realdb"} for r in beats)
    quiet = render_debezium_mysql(MARIADB, "shopx", TOPIC, schemas=False, heartbeats=False)
    assert {r.topic for r in quiet} == {TOPIC, f"{TOPIC}.schema-changes"}


def test_mysql_connector_mode_and_precise_unsigned_bigint() -> None:
    records = render_debezium_mysql(MARIADB, "shopx", TOPIC, schemas=True, connector="mysql",
                                    bigint_unsigned="precise")
    record = _by_after_id(records, "c", 1)
    env = _payload(record)
    assert (env["source"]["connector"], env["source"]["gtid"]) == ("mysql", None)
    assert _value(record)["schema"]["fields"][2]["name"] == "io.debezium.connector.mysql.Source"
    assert _decimal(env["after"]["bu"], 0) == 18446744073709551615


# ---------------------------------------------------------------------------------------------
# Debezium PostgreSQL


def test_postgres_source_block(pg_records: list[Record], vectors: Path) -> None:
    envs = _envelopes(pg_records)
    source = envs[0]["source"]
    assert list(source) == ["version", "connector", "name", "ts_ms", "snapshot", "db", "sequence", "ts_us", "ts_ns",
                            "schema", "table", "txId", "lsn", "xmin"]
    documented = _vector(vectors, "debezium_json/flink_debezium_postgres_replica_identity_default.ndjson")["source"]
    assert set(documented) <= set(source)
    assert (source["db"], source["schema"], source["table"], source["txId"], source["lsn"]) == (
        "appx", "public", "things", 500, 1000)
    assert (source["ts_ms"], source["ts_us"]) == (1_700_000_100_123, 1_700_000_100_123_456)
    assert [e["source"]["sequence"] for e in envs[:3]] == ['[null,"1000"]', '[null,"1000"]', '["1000","1100"]']


def test_postgres_value_encodings(pg_records: list[Record]) -> None:
    record = _by_after_id(pg_records, "c", 1)
    after = _payload(record)["after"]
    assert _decimal(after["n38"], 10) == THING["n38"]
    assert after["nv"]["scale"] == 2 and _decimal(after["nv"]["value"], 2) == Decimal("12.34")
    assert _column_schema(record, "nv")["name"] == "io.debezium.data.VariableScaleDecimal"
    assert (after["t3"], after["t6"]) == (1704164645678, 253402300799999999)
    assert (_column_schema(record, "t3")["name"], _column_schema(record, "t6")["name"]) == (
        "io.debezium.time.Timestamp", "io.debezium.time.MicroTimestamp")
    assert after["tz"] == "2038-01-19T03:14:07.999999Z" and after["d"] == -354285 and after["tm"] == 86399999999
    assert base64.b64decode(after["by"]) == b"\x00\x01\x00\x00"
    assert (after["j"], after["jb"], after["ok"]) == (THING["j"], THING["jb"], True)
    assert _column_schema(record, "jb")["name"] == "io.debezium.data.Json"
    assert '"r":0.1,' in (record.value or "") and '"dp":6.02214076E23,' in (record.value or "")
    assert _payload(_by_after_id(pg_records, "c", 2))["after"]["tz"] == "2000-01-01T00:00:00.000000Z"
    updated = _payload(_by_after_id(pg_records, "u", 1))
    assert updated["before"]["qty"] == 5 and updated["after"]["nv"] == {"scale": 0, "value": "BLA="}


def test_postgres_key_change_delete_and_truncate(pg_records: list[Record]) -> None:
    data = _data(pg_records)
    ops = [(_payload(r)["op"] if r.value else None, r.key and json.loads(r.key)["payload"]) for r in data]
    assert ops == [("c", {"id": 1}), ("c", {"id": 2}), ("u", {"id": 1}), ("d", {"id": 1}), (None, {"id": 1}),
                   ("c", {"id": 10}), ("d", {"id": 2}), (None, {"id": 2}), ("t", None)]
    deleted = _payload(data[6])["before"]
    assert deleted["id"] == 2 and deleted["qty"] == 0 and deleted["tx"] is None  # NOT NULL fallback, nullable null


# ---------------------------------------------------------------------------------------------
# Huawei CDL


def test_cdl_json_matches_the_vendor_example(vectors: Path) -> None:
    example = _vector(vectors, "huawei_cdl/cdl_json_v1_insert.ndjson")
    records = render_cdl_json(POSTGRES, "appx", "cdl.topic", seed=2, heartbeat_every=3)
    messages = [json.loads(r.value or "") for r in records]
    first = messages[0]
    assert list(first["payload"]) == list(example["payload"])
    assert [f["field"] for f in first["schema"]["fields"]] == [f["field"] for f in example["schema"]["fields"]]
    assert first["schema"]["fields"][:7] == example["schema"]["fields"][:7]  # envelope, transaction, TIMESTAMP
    assert first["schema"]["name"] == "public.things" and first["payload"]["SEG_OWNER"] == "public"
    payload = first["payload"]
    assert payload["transaction"] == {"properties": [{"name": "lsn", "value": 1000}, {"name": "txId", "value": 500}]}
    assert (payload["TIMESTAMP"], payload["unique"], payload["before"]) == (1_700_000_100_123, {"id": 1}, None)
    assert payload["data"]["n38"] == "-1234567890123456789012345678.0123456789"
    assert payload["data"]["t3"] == 1704164645678
    assert payload["LOB_COLUMNS"] == "by,j,jb,tx"
    operations = [(m["payload"]["TABLE_NAME"], m["payload"]["OPERATION"]) for m in messages]
    assert [op for table, op in operations if table == "things"] == ["INSERT", "INSERT", "UPDATE", "DELETE", "INSERT",
                                                                     "DELETE"]
    assert [op for table, op in operations if table == "CDC_HEARTBEAT"] == ["UPDATE", "UPDATE"]
    assert all(r.key is None and r.value is not None for r in records)


def test_cdl_debezium_matches_the_vendor_example(vectors: Path) -> None:
    example = _vector(vectors, "huawei_cdl/cdl_debezium_v2_insert.ndjson")
    records = render_cdl_debezium(POSTGRES, "appx", "cdl.topic", seed=2, heartbeats=False)
    first = json.loads(records[0].value or "")
    assert list(first["payload"]) == list(example["payload"])
    assert list(first["payload"]["source"]) == list(example["payload"]["source"])
    assert first["schema"]["fields"][2] == example["schema"]["fields"][2]  # the source struct
    assert [(f["field"], f.get("name")) for f in first["schema"]["fields"]] == [
        (f["field"], f.get("name")) for f in example["schema"]["fields"]]
    payload = first["payload"]
    assert (payload["op"], payload["source"]["db"], payload["source"]["lsn"], payload["unique"]) == (
        "c", "appx", 1000, {"id": 1})
    assert payload["after"]["t3"] == "2024-01-02 03:04:05.678"
    assert payload["after"]["tz"] == "2038-01-19 03:14:07.999999+00"
    time1 = next(f for f in first["schema"]["fields"][1]["fields"] if f["field"] == "t3")
    assert time1["name"] == "com.xxx.cdc.data.timestamp"
    assert [json.loads(r.value or "")["payload"]["op"] for r in records] == ["c", "c", "u", "d", "c", "d"]


def test_cdl_takes_postgres_captures_only() -> None:
    with pytest.raises(ValueError):
        render_cdl_json(MARIADB, "shopx", "cdl.topic")
    with pytest.raises(ValueError):
        render_debezium_postgres(MARIADB, "shopx", TOPIC, schemas=True)
