"""One named regression test per class of defect that streams captured from a real
MariaDB found (issue: real-database truth). Each lands the smallest input that showed
the defect, beside the others, into the examples lake (tests/examples/conftest.py);
number 5 needs a lake of its own (tests/test_untyped_lake.py).

1. ordering across partitions: a key moved by an UPDATE (written to the new key's
   partition) and the old key inserted again in the same second (the old key's
   partition), and a TRUNCATE between row changes of one second;
2. tables without a key across ADD COLUMN and DROP COLUMN;
3. temporal values over the whole MySQL range (Debezium / CDL numeric encodings);
4. JSON column values keep the text of every number and the order of their keys;
5. a lake whose tables carry no vendor types builds (gold.cdc_cast_failures):
   tests/test_untyped_lake.py;
6. a megabyte binary value (DRS Java byte-array literal) is read without a regular
   expression over it;
7. a format without types (Debezium without its schema envelope) reads by the column
   types a table declares (var cdc_tables);
8. an update of a keyless row after a DROP COLUMN the stream does not announce (Shareplex
   Json: no DDL, no types), and a delete of one.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import synth
from cdclake.lake import Lake

ES = 1_700_000_000_000  # one second shared by the changes of a test
CANAL_FAMILY = ("canal_json", "canal_json_legacy", "drs_json", "drs_json_c")


def canal_message(format_id: str, db: str, table: str, op: str, rows: list[tuple[dict | None, dict | None]],
                  *, msg_id: int, pk: list[str], types: dict[str, str], gtid: str | None = None,
                  sql: str = "", es: int = ES) -> dict[str, Any]:
    """A Canal-family message of `rows` ((before, after) pairs), images where `format_id`
    puts them (see macros/decoders/_canal_family.sql)."""
    message: dict[str, Any] = {
        "id": msg_id, "database": db, "table": table, "pkNames": pk or None, "isDdl": op in ("ALTER", "TRUNCATE"),
        "type": op, "es": es, "ts": es + 300, "sql": sql, "mysqlType": types if op not in ("ALTER", "TRUNCATE")
        else None, "data": None, "old": None,
    }
    if gtid is not None:
        message["gtid"] = gtid
    befores = [b for b, _ in rows]
    afters = [a for _, a in rows]
    if op == "INSERT":
        message["data"] = afters
    elif op == "DELETE":
        message["old" if format_id in ("drs_json", "canal_json_legacy") else "data"] = befores
    elif op == "UPDATE":
        if format_id == "canal_json_legacy":
            message["data"], message["old"] = befores, afters
        elif format_id == "canal_json":
            message["data"] = afters
            message["old"] = [{c: v for c, v in b.items() if a.get(c) != v}
                              for b, a in zip(befores, afters, strict=True)]
        else:
            message["data"], message["old"] = afters, befores
    return message


def record(topic: str, partition: int, offset: int, message: dict[str, Any] | str) -> synth.Record:
    value = message if isinstance(message, str) else json.dumps(message, ensure_ascii=False)
    return synth.Record(topic, partition, offset, ES + 500, value)


# ------------------------------------------------------------------ 1. ordering across partitions

KEY_TYPES = {"id": "int(11)", "v": "varchar(8)"}


def key_move_records(format_id: str) -> list[synth.Record]:
    """`update t set id = 6 where id = 5; insert into t values (5, 'new')` in one second:
    the move goes to key 6's partition (2), the re-insert to key 5's (0). Ordering by
    `es` then partition applies the move last and deletes the new row 5. Then a TRUNCATE
    (partition 1) between two inserts of one second, and two messages of one Canal batch
    whose MariaDB GTIDs compare as numbers (9 < 10), not as text."""
    db, topic = f"ord_{format_id}", f"reg.ord.{format_id}"
    m = lambda *a, **k: canal_message(format_id, db, *a, **k)  # noqa: E731
    row = lambda i, v: {"id": str(i), "v": v}  # noqa: E731
    return [
        record(topic, 0, 0, m("t", "INSERT", [(None, row(5, "old"))], msg_id=1, pk=["id"], types=KEY_TYPES)),
        record(topic, 2, 0, m("t", "UPDATE", [(row(5, "old"), row(6, "old"))], msg_id=2, pk=["id"],
                              types=KEY_TYPES)),
        record(topic, 0, 1, m("t", "INSERT", [(None, row(5, "new"))], msg_id=3, pk=["id"], types=KEY_TYPES)),
        record(topic, 2, 1, m("u", "INSERT", [(None, row(1, "gone"))], msg_id=4, pk=["id"], types=KEY_TYPES)),
        record(topic, 1, 0, m("u", "TRUNCATE", [], msg_id=5, pk=["id"], types=KEY_TYPES,
                              sql=f"TRUNCATE TABLE `{db}`.`u`")),
        record(topic, 0, 2, m("u", "INSERT", [(None, row(2, "kept"))], msg_id=6, pk=["id"], types=KEY_TYPES)),
        # one batch id, two transactions: the GTID decides
        record(topic, 1, 1, m("w", "INSERT", [(None, row(7, "a"))], msg_id=7, pk=["id"], types=KEY_TYPES,
                              gtid="0-1-9")),
        record(topic, 0, 3, m("w", "UPDATE", [(row(7, "a"), row(8, "a"))], msg_id=7, pk=["id"], types=KEY_TYPES,
                              gtid="0-1-10")),
        *tie_records(format_id, topic, m),
    ]


def tie_records(format_id: str, topic: str, m: Any) -> list[synth.Record]:
    """Changes with one `es`, `id` and GTID in different partitions (one Canal batch of
    one transaction): nothing orders them but the state of the key. Keys 10, 39, 40 exist
    before (an earlier second); then: 10 moved to 11 and 10 inserted again; 20 inserted
    and moved to 21 (the move in a lower partition); 30 inserted and moved to 31 (the
    move in a higher one); `update set id = id + 1` over 39, 40, split by new key."""
    row = lambda i, v: {"id": str(i), "v": v}  # noqa: E731
    earlier = dict(msg_id=8, pk=["id"], types=KEY_TYPES, es=ES - 1000)
    tied = dict(msg_id=9, pk=["id"], types=KEY_TYPES, gtid="0-1-11")
    return [
        record(topic, 0, 10, m("x", "INSERT", [(None, row(10, "old")), (None, row(39, "a")), (None, row(40, "b"))],
                               **earlier)),
        record(topic, 2, 10, m("x", "UPDATE", [(row(10, "old"), row(11, "old"))], **tied)),
        record(topic, 0, 11, m("x", "INSERT", [(None, row(10, "new"))], **tied)),
        record(topic, 2, 11, m("x", "INSERT", [(None, row(20, "b"))], **tied)),
        record(topic, 0, 12, m("x", "UPDATE", [(row(20, "b"), row(21, "b"))], **tied)),
        record(topic, 0, 13, m("x", "INSERT", [(None, row(30, "c"))], **tied)),
        record(topic, 2, 12, m("x", "UPDATE", [(row(30, "c"), row(31, "c"))], **tied)),
        record(topic, 1, 10, m("x", "UPDATE", [(row(40, "b"), row(41, "b"))], **tied)),
        record(topic, 0, 14, m("x", "UPDATE", [(row(39, "a"), row(40, "a"))], **tied)),
    ]


# ------------------------------------------------------------------ 2. keyless tables across DDL

BAG_TYPES = {"a": "int(11)", "b": "varchar(8)"}


def keyless_records(format_id: str) -> list[synth.Record]:
    """A table without a key: (1,'x') and (2,'y') inserted; ADD COLUMN tag; the DELETE of
    (1,'x') now carries tag: null. Then DROP COLUMN b; the DELETE of row 2 carries no b.
    Both rows must be gone; (3,'z') inserted before the DDL stays."""
    db, topic = f"bag_{format_id}", f"reg.bag.{format_id}"
    m = lambda *a, **k: canal_message(format_id, db, *a, **k)  # noqa: E731
    return [
        record(topic, 0, 0, m("bag", "INSERT", [(None, {"a": "1", "b": "x"}), (None, {"a": "2", "b": "y"}),
                                                (None, {"a": "3", "b": "z"})], msg_id=1, pk=[], types=BAG_TYPES)),
        record(topic, 0, 1, m("bag", "ALTER", [], msg_id=2, pk=[], types=BAG_TYPES,
                              sql="ALTER TABLE bag ADD COLUMN tag varchar(8) NULL AFTER a")),
        record(topic, 0, 2, m("bag", "DELETE", [({"a": "1", "tag": None, "b": "x"}, None)], msg_id=3, pk=[],
                              types={**BAG_TYPES, "tag": "varchar(8)"})),
        record(topic, 0, 3, m("bag", "ALTER", [], msg_id=4, pk=[], types=BAG_TYPES,
                              sql="ALTER TABLE bag DROP COLUMN b")),
        record(topic, 0, 4, m("bag", "DELETE", [({"a": "2", "tag": None}, None)], msg_id=5, pk=[],
                              types={"a": "int(11)", "tag": "varchar(8)"})),
    ]


# ------------------------------------------------------------------ 3. temporal ranges

def connect_field(name: str, type_: str, logical: str | None = None) -> dict[str, Any]:
    return {"field": name, "type": type_, "optional": name != "id", **({"name": logical} if logical else {})}


TEMPORAL_FIELDS = [
    connect_field("id", "int32"),
    connect_field("d_max", "int32", "io.debezium.time.Date"),
    connect_field("d_min", "int32", "io.debezium.time.Date"),
    connect_field("dt6_max", "int64", "io.debezium.time.MicroTimestamp"),
    connect_field("dt0_min", "int64", "io.debezium.time.Timestamp"),
    connect_field("dt3_neg", "int64", "io.debezium.time.Timestamp"),
    connect_field("t_max", "int64", "io.debezium.time.MicroTime"),
    connect_field("t_min", "int64", "io.debezium.time.MicroTime"),
    connect_field("ts6_max", "string", "io.debezium.time.ZonedTimestamp"),
    connect_field("y_max", "int32", "io.debezium.time.Year"),
]
TEMPORAL_VALUES = {
    "id": 1, "d_max": 2932896, "d_min": -354285, "dt6_max": 253402300799999999, "dt0_min": -30610224000000,
    "dt3_neg": -1, "t_max": 3020399000000, "t_min": -3020399000000, "ts6_max": "2038-01-19T03:14:07.999999Z",
    "y_max": 2155,
}
TEMPORAL_TEXT = {
    "id": "1", "d_max": "9999-12-31", "d_min": "1000-01-01", "dt6_max": "9999-12-31T23:59:59.999999",
    "dt0_min": "1000-01-01T00:00:00", "dt3_neg": "1969-12-31T23:59:59.999", "t_max": "838:59:59",
    "t_min": "-838:59:59", "ts6_max": "2038-01-19T03:14:07.999999Z", "y_max": "2155",
}


def debezium_temporal_record() -> synth.Record:
    """A Debezium MySQL insert (schemas.enable) of the MySQL temporal limits."""
    row = {"type": "struct", "optional": True, "fields": TEMPORAL_FIELDS}
    source = {"type": "struct", "optional": False, "field": "source", "fields": [
        connect_field(f, "string") for f in ("connector", "db", "table", "file")] + [
        connect_field("pos", "int64"), connect_field("row", "int32"), connect_field("ts_ms", "int64")]}
    schema = {"type": "struct", "fields": [{**row, "field": "before"}, {**row, "field": "after"}, source,
                                           connect_field("op", "string"), connect_field("ts_ms", "int64")]}
    payload = {"before": None, "after": TEMPORAL_VALUES, "op": "c", "ts_ms": ES + 300, "source": {
        "connector": "mysql", "db": "tmp_dbz", "table": "limits", "file": "mysql-bin.000001", "pos": 4, "row": 0,
        "ts_ms": ES}}
    return record("reg.tmp.debezium", 0, 0, {"schema": schema, "payload": payload})


PLAIN_DECLARED = {"tmp_plain.limits": {"primary_key": ["id"], "dialect": "mysql", "columns": {
    "id": "int", "d_max": "date", "d_min": "date", "dt6_max": "datetime(6)", "dt0_min": "datetime",
    "dt3_neg": "datetime(3)", "t_max": "time", "t_min": "time(6)", "ts6_max": "timestamp(6)", "y_max": "year"}}}


def debezium_plain_records() -> list[synth.Record]:
    """7. The same insert without the schema envelope (schemas.enable=false), into a
    table that declares its column types (var cdc_tables) and into one that does not."""
    def message(db: str) -> dict[str, Any]:
        return {"before": None, "after": TEMPORAL_VALUES, "op": "c", "ts_ms": ES + 300, "source": {
            "connector": "mysql", "db": db, "table": "limits", "file": "mysql-bin.000001", "pos": 4, "row": 0,
            "ts_ms": ES}}
    key = json.dumps({"id": 1})
    return [synth.Record("reg.tmp.plain", 0, 0, ES, json.dumps(message("tmp_plain")), key),
            synth.Record("reg.tmp.plain", 0, 1, ES, json.dumps(message("tmp_undeclared")), key)]


def cdl_temporal_record() -> synth.Record:
    """A CDL JSON 1.0 insert whose Connect Date is 9999-12-31 (2932896 days) and whose
    Connect Time passes 24 hours, as MySQL TIME may."""
    fields = [connect_field("id", "int32"),
              connect_field("d", "int32", "org.apache.kafka.connect.data.Date"),
              connect_field("t", "int32", "org.apache.kafka.connect.data.Time")]
    message = {
        "schema": {"type": "struct", "fields": [
            {"type": "struct", "field": "data", "optional": True, "fields": fields},
            {"type": "struct", "field": "before", "optional": True, "fields": fields}]},
        "payload": {"message_version": "1.0", "OPERATION": "INSERT", "data": {"id": 1, "d": 2932896, "t": 3020399000},
                    "before": None, "TIMESTAMP": ES, "SEG_OWNER": "tmp_cdl", "TABLE_NAME": "limits",
                    "transaction": {"properties": [{"name": "lsn", "value": 100}, {"name": "txId", "value": 7}]}},
    }
    return record("reg.tmp.cdl", 0, 0, message)


# ------------------------------------------------------------------ 4. JSON text

JSON_DOC = '{"price": 966.0, "qty": 1e3, "big": 12345678901234567890123, "neg": -0, "z": {"b": 1, "a": [1.50]}}'
JSON_COMPACT = '{"price":966.0,"qty":1e3,"big":12345678901234567890123,"neg":-0,"z":{"b":1,"a":[1.50]}}'


def json_records() -> list[synth.Record]:
    canal = canal_message("canal_json", "json_canal", "docs", "INSERT", [(None, {"id": "1", "doc": JSON_DOC})],
                          msg_id=1, pk=["id"], types={"id": "int(11)", "doc": "json"})
    return [record("reg.json.canal", 0, 0, canal)]


# ------------------------------------------------------------------ 6. megabyte values

MEGABYTE = bytes(range(256)) * 4096 + b"\x00\x00"


def megabyte_records() -> list[synth.Record]:
    literal = "[" + ", ".join(str(b - 256 if b > 127 else b) for b in MEGABYTE) + "]"
    drs = canal_message("drs_json", "big_drs", "blobs", "INSERT", [(None, {"id": "1", "b": literal})],
                        msg_id=1, pk=["id"], types={"id": "int", "b": "longblob"})
    return [record("reg.big.drs", 0, 0, drs)]


# ------------------------------------------------------------------ 8. keyless rows, a format without DDL or types

def shareplex_keyless_records() -> list[list[synth.Record]]:
    """As MariaDB logged it, rendered as Shareplex Json (no ROWID from MariaDB, no DDL, no
    types): a keyless row inserted with `channel`, `DROP COLUMN channel` (not in the
    stream), a row inserted without it, then an update of the first row whose key image
    no longer has the column (found by the real-database harness at workload scale 0.5).
    In table `gone`, two rows inserted with `channel`, then the delete of one of them,
    its image without the column (the harness's workload at scale 0.4 deleted a row of
    shop.events_log so). Three landings, one per build: the rows inserted with `channel`;
    the changes after the drop (the next build folds the first rows again under the
    identity without the column); one more insert into `log` (the build after leaves the
    rows folded again alone)."""
    def message(seq: int, op: str, body: dict[str, Any]) -> dict[str, Any]:
        meta = {"time": "2023-11-14T22:13:20", "userid": 0, "op": op, "scn": str(seq), "rowid": None,
                "trans": str(seq), "seq": 1, "size": 1, "table": "nodrop_sp.log", "idx": "1/1",
                "posttime": "2023-11-14T22:13:21"}
        table = body.pop("meta_table", None)
        return {"meta": {**meta, "table": table} if table else meta, **body}
    records = [record("reg.nodrop.shareplex", 0, n, m) for n, m in enumerate([
        message(1, "ins", {"data": {"kind": "view", "channel": "web", "note": "O'Reilly"}}),
        message(2, "ins", {"data": {"kind": "view", "channel": "web", "note": "kept"},
                           "meta_table": "nodrop_sp.gone"}),
        message(3, "ins", {"data": {"kind": "click", "channel": "app", "note": "deleted"},
                           "meta_table": "nodrop_sp.gone"}),
        message(4, "ins", {"data": {"kind": "buy", "note": "after the drop"}}),
        message(5, "upd", {"data": {"note": "edited"}, "key": {"kind": "view", "note": "O'Reilly"}}),
        message(6, "del", {"data": {"kind": "click", "note": "deleted"}, "meta_table": "nodrop_sp.gone"}),
        message(7, "ins", {"data": {"kind": "view", "note": "third build"}}),
    ])]
    return [records[:3], records[3:6], records[6:]]


# ------------------------------------------------------------------ the lake

EXAMPLE_VARS = {"cdc_tables": PLAIN_DECLARED}


def land_examples(lake: Lake, tmp: Path) -> Iterator[None]:
    """Every input above, a landing batch each (tests/examples/conftest.py); the Shareplex
    records in three, one per build."""
    def land(name: str, format_id: str, records: list[synth.Record]) -> None:
        path = tmp / f"{name}.jsonl"
        synth.write_records(path, records)
        lake.land([path], declared_format=format_id)

    for format_id in CANAL_FAMILY:
        land(f"ord.{format_id}", format_id, key_move_records(format_id))
        land(f"bag.{format_id}", format_id, keyless_records(format_id))
    land("tmp.dbz", "debezium_json", [debezium_temporal_record()])
    land("tmp.cdl", "cdl_json", [cdl_temporal_record()])
    land("tmp.plain", "debezium_json", debezium_plain_records())
    land("json.canal", "canal_json", json_records())
    land("big.drs", "drs_json", megabyte_records())
    for step, records in enumerate(shareplex_keyless_records(), 1):
        land(f"nodrop.sp.{step}", "shareplex_json", records)
        yield
    return lake


def current(lake: Lake, table_id: str) -> dict[str, dict[str, str | None]]:
    rows = lake.rows("select row_key, row from gold.cdc_current_rows where table_id = :t", t=table_id)
    return {r["row_key"]: r["row"] for r in rows}


@pytest.mark.parametrize("format_id", CANAL_FAMILY)
def test_key_move_and_reinsert_in_one_second_across_partitions(built, format_id):
    """1. The move applies before the re-insert: both keys live, key 5 with the new row."""
    assert current(built, f"ord_{format_id}.t") == {
        '["5"]': {"id": "5", "v": "new"}, '["6"]': {"id": "6", "v": "old"}}


@pytest.mark.parametrize("format_id", CANAL_FAMILY)
def test_truncate_among_row_changes_of_one_second(built, format_id):
    """1. A TRUNCATE empties what came before it in the message order, not what follows."""
    assert current(built, f"ord_{format_id}.u") == {'["2"]': {"id": "2", "v": "kept"}}


@pytest.mark.parametrize("format_id", CANAL_FAMILY)
def test_gtid_sequence_orders_messages_of_one_batch_as_numbers(built, format_id):
    """1. MariaDB GTIDs 0-1-9 < 0-1-10: the insert of key 7 comes before its move to 8."""
    assert current(built, f"ord_{format_id}.w") == {'["8"]': {"id": "8", "v": "a"}}


@pytest.mark.parametrize("format_id", CANAL_FAMILY)
def test_key_creation_and_move_tied_across_partitions(built, format_id):
    """1. Ties the message order cannot break are settled by the key's state."""
    assert current(built, f"ord_{format_id}.x") == {
        '["10"]': {"id": "10", "v": "new"}, '["11"]': {"id": "11", "v": "old"},
        '["21"]': {"id": "21", "v": "b"}, '["31"]': {"id": "31", "v": "c"},
        '["40"]': {"id": "40", "v": "a"}, '["41"]': {"id": "41", "v": "b"}}


@pytest.mark.parametrize("format_id", CANAL_FAMILY)
def test_keyless_rows_survive_add_and_drop_column(built, format_id):
    """2. The deletes after ADD COLUMN (tag: null) and after DROP COLUMN (no b) remove the
    rows inserted before them; the untouched row stays, once."""
    rows = built.rows("select row, row_count from gold.cdc_current_rows where table_id = :t",
                      t=f"bag_{format_id}.bag")
    assert [(r["row"], r["row_count"]) for r in rows] == [({"a": "3", "b": "z"}, 1)]


def test_debezium_temporal_limits(built):
    """3. io.debezium.time.* over the whole MySQL range."""
    (row,) = current(built, "tmp_dbz.limits").values()
    assert row == TEMPORAL_TEXT


def test_declared_types_read_a_debezium_message_without_its_schema(built):
    """7. With the table's types declared (var cdc_tables), a message without the schema
    envelope reads as the typed one does; an undeclared table keeps what was sent."""
    (row,) = current(built, "tmp_plain.limits").values()
    assert row == TEMPORAL_TEXT
    (undeclared,) = current(built, "tmp_undeclared.limits").values()
    assert undeclared == {k: str(v) for k, v in TEMPORAL_VALUES.items()}
    (types,) = built.rows("select column_types from silver.cdc_changes where table_id = 'tmp_plain.limits'")
    assert types["column_types"]["dt6_max"] == "int64 io.debezium.time.MicroTimestamp"


def test_cdl_date_9999_and_time_past_24_hours(built):
    """3. CDL Connect Date 2932896 days is 9999-12-31 (not digits); Time 838:59:59."""
    (row,) = current(built, "tmp_cdl.limits").values()
    assert row == {"id": "1", "d": "9999-12-31", "t": "838:59:59"}


def test_json_values_keep_number_text_and_key_order(built):
    """4. Only insignificant whitespace goes."""
    (row,) = current(built, "json_canal.docs").values()
    assert row["doc"] == JSON_COMPACT
    assert json.loads(row["doc"]) == json.loads(JSON_DOC)


def test_megabyte_byte_array_literal_is_decoded(built):
    """6. A 1 MB Java byte-array literal becomes base64 of its bytes; nothing is rejected."""
    (row,) = current(built, "big_drs.blobs").values()
    assert base64.b64decode(row["b"]) == MEGABYTE
    assert built.rows("select count(*) as n from silver.cdc_rejects where topic like 'reg.%'")[0]["n"] == 0


def test_keyless_update_after_an_unannounced_drop_column(built):
    """8. The update names the row by an image without the dropped column: one row, edited."""
    rows = built.rows("select row, row_count from gold.cdc_current_rows where table_id = 'nodrop_sp.log'")
    assert sorted((json.dumps(r["row"], sort_keys=True), r["row_count"]) for r in rows) == [
        (json.dumps({"kind": "buy", "note": "after the drop"}, sort_keys=True), 1),
        (json.dumps({"kind": "view", "note": "edited"}, sort_keys=True), 1),
        (json.dumps({"kind": "view", "note": "third build"}, sort_keys=True), 1),
    ]


def test_a_row_folded_again_without_a_dropped_column_is_not_folded_again(built):
    """8. The build that found `channel` dropped folded the row inserted with it again; the
    next build, with a new change to the table, writes only the new row's version (it
    used to fold every row whose versions held the column, at every build)."""
    rows = built.rows("select row_key, built_through_batch_id as built from gold.cdc_row_history "
                      "where table_id = 'nodrop_sp.log'")
    built_in = {}
    for r in rows:
        built_in.setdefault(r["row_key"], set()).add(r["built"])
    third = built_in.pop('{"kind":"view","note":"third build"}')
    assert len(third) == 1 and all(b < min(third) for b in set().union(*built_in.values())), built_in


def test_keyless_delete_after_an_unannounced_drop_column(built):
    """8. The delete names the row by its whole image, without the dropped column: the row
    is gone (before the column was known dropped from that image, gold kept it: a row the
    database no longer has)."""
    rows = built.rows("select row, row_count from gold.cdc_current_rows where table_id = 'nodrop_sp.gone'")
    assert [(r["row"]["kind"], r["row"]["note"], r["row_count"]) for r in rows] == [("view", "kept", 1)]
