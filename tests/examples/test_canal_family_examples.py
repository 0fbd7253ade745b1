"""Every example message of the Canal family (canal_json, canal_json_legacy, drs_json,
drs_json_c) decodes to exactly the silver rows it describes, and the Canal files of the
Flink, Paimon and Flink CDC test suites fold in gold to the final states those suites
expect (or, where we deliberately accept more, to a state the test states and explains).

Sources: the vendor documents (Huawei DRS "Kafka消息格式", Alibaba DTS "Kafkaクラスターの
データ形式"), tests/vectors/ and tests/vectors/peer-test-suites/ (see their SOURCES.md).
Formats without a vendor example (DRS JSON-C, a pre-2022 DTS UPDATE) are built by hand
from the documents' descriptions, below.

Every case lands under its own topic in the examples lake (tests/examples/conftest.py) for
its first build; Paimon's scenarios, which check the state after each file, land one file
per build (5 builds). Gold keeps one table per table_id whatever the topic, so the peer files
whose tables share names with other cases land with their `database` renamed.
"""

from __future__ import annotations

import base64
import json
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cdclake.lake import Lake

Row = dict[str, Any]
Image = dict[str, str | None]

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
PEERS = VECTORS / "peer-test-suites"
FLINK = json.loads((PEERS / "flink" / "expected.json").read_text(encoding="utf-8"))
PAIMON = json.loads((PEERS / "paimon" / "expected.json").read_text(encoding="utf-8"))
FLINK_CDC = json.loads((PEERS / "flink-cdc" / "expected.json").read_text(encoding="utf-8"))
PAIMON_SCENARIOS = {s["name"]: s for s in PAIMON["scenarios"] if s["name"] in ("canal-event", "canal-schemaevolution")}

# one topic per case
CANAL_QUERY = "ex.canal.issue-3179"
CANAL_FLINK = "ex.canal.flink"
CANAL_ALLTYPE = "ex.canal.paimon-alltype"
CANAL_EVENT = "ex.canal.paimon-event"
DTS_DOC_LEGACY_DELETE = "ex.dts.doc-legacy-delete"
DTS_DOC_DELETE = "ex.dts.doc-delete"
DTS_DOC_DDL = "ex.dts.doc-ddl"
DTS_INIT = "ex.dts.init"
DTS_LEGACY = "ex.dts.legacy-hand-built"
DRS_MYSQL = "ex.drs.mysql-update"
DRS_GAUSSDB = "ex.drs.gaussdb-update"
DRS_JSON_C = "ex.drs-json-c.hand-built"
PEER_CANAL_DATA = "peer.flink.canal-data"
PEER_FILTER_TABLE = "peer.flink.canal-data-filter-table"
PEER_WITH_INIT = "peer.flink.canal-data-with-init"
PEER_FLINK_CDC = "peer.flink-cdc.canal-json"

# DTS "Canal Json" of an instance created before 2022-03-20 (no example in the document
# besides a DELETE without its key column): UPDATE `data` = before image, `old` = after
# image, "all columns by default" (row 0) -- row 1 shows that a partial `old` overlays
# `data` by key presence, a JSON null included; DELETE carries its row in `old`.
DTS_LEGACY_MESSAGES = [
    '{"data":[{"id":"500000287","shipping_type":"aaa","note":null},{"id":"500000288","shipping_type":"aaa",'
    '"note":"x"}],"database":"dbname","es":1600161954000,"gtid":"4f0c0bd5-f3b9-11ea-8f3c-00163e0e8d1a:1532",'
    '"id":61,"isDdl":false,"mysqlType":{"id":"bigint(20)","shipping_type":"varchar(50)","note":"varchar(50)"},'
    '"old":[{"id":"500000287","shipping_type":"bbb","note":"first"},{"note":null}],"pkNames":["id"],"sql":"",'
    '"sqlType":{"id":-5,"shipping_type":12,"note":12},"table":"orders","ts":1600161954771,"type":"UPDATE"}',
    '{"database":"dbname","es":1600162014000,"gtid":"4f0c0bd5-f3b9-11ea-8f3c-00163e0e8d1a:1533","id":62,'
    '"isDdl":false,"mysqlType":{"id":"bigint(20)","shipping_type":"varchar(50)","note":"varchar(50)"},'
    '"old":[{"id":"500000288","shipping_type":"aaa","note":null}],"pkNames":["id"],"sql":"",'
    '"sqlType":{"id":-5,"shipping_type":12,"note":12},"table":"orders","ts":1600162014302,"type":"DELETE"}',
]

# DRS JSON-C as the DRS document describes it (it has no example): the JSON envelope, DELETE
# rows in `data`, TIMESTAMP as "yyyy-mm-dd hh:mm:ss" text; values as in the JSON example
# (DOUBLE in Java notation, binary as a Java byte array, Gson's \u003c-style escapes).
_JSON_C_TYPES = ('"mysqlType":{"id":"int","name":"varchar","price":"decimal","amount":"double",'
                 '"updated_at":"timestamp","created":"datetime","payload":"varbinary"},'
                 '"sqlType":{"id":4,"name":12,"price":3,"amount":8,"updated_at":93,"created":94,"payload":-3}')
_JSON_C_INSERTED = ('{"id":"7","name":"a\\u003cb\\u0026c","price":"19.90","amount":"1.0E-4",'
                    '"updated_at":"2021-06-25 17:51:53","created":"2021-06-25 17:51:53","payload":"[-1, 0, 127]"}')
_JSON_C_UPDATED = ('{"id":"7","name":"a\\u003cb\\u0026c","price":"21.00","amount":"1.0E-4",'
                   '"updated_at":"2021-06-25 18:00:00","created":"2021-06-25 17:51:53","payload":"[]"}')
DRS_JSON_C_MESSAGES = [
    '{' + _JSON_C_TYPES + ',"id":30001,"es":1624614713000,"ts":1624614713420,"database":"drs_shop","table":"orders",'
    '"type":"INSERT","isDdl":false,"sql":"","data":[' + _JSON_C_INSERTED + '],"old":null,"pkNames":["id"]}',
    '{' + _JSON_C_TYPES + ',"id":30002,"es":1624615200000,"ts":1624615200310,"database":"drs_shop","table":"orders",'
    '"type":"UPDATE","isDdl":false,"sql":"","data":[' + _JSON_C_UPDATED + '],"old":[' + _JSON_C_INSERTED + '],'
    '"pkNames":["id"]}',
    '{' + _JSON_C_TYPES + ',"id":30003,"es":1624615260000,"ts":1624615260050,"database":"drs_shop","table":"orders",'
    '"type":"DELETE","isDdl":false,"sql":"","data":[' + _JSON_C_UPDATED + '],"old":null,"pkNames":["id"]}',
]

# What Paimon's one merged table of a topic loses and our per-table gold keeps, by
# checkpoint of the canal-event scenario (see test_paimon_canal_event_scenario).
CANAL_EVENT_KEPT_APART = {
    3: ["+I[1, 2, two, NULL, NULL, NULL, NULL]"],
    4: ["+I[1, 1, one, NULL, NULL, NULL, NULL]", "+I[1, 2, two, NULL, NULL, NULL, NULL]"],
}


# ---------------------------------------------------------------------------- helpers


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def iso_ms(epoch_ms: int) -> str:
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def iso_sql(column: str) -> str:
    """SQL for a timestamp column as ISO-8601 UTC text with milliseconds (the session zone is UTC)."""
    return f"""date_format({column}, "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'") as {column}"""


def key(*values: str) -> str:
    """Our row_key: the JSON array text of the key values."""
    return json.dumps(list(values), separators=(",", ":"))


def whole_row_key(image: Image) -> str:
    """Our row_key of a table without a primary key: the row as JSON, columns sorted."""
    return json.dumps({c: v for c, v in sorted(image.items()) if v is not None},
                      ensure_ascii=False, separators=(",", ":"))


def messages(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def with_database(source: Path, database: str, folder: Path) -> Path:
    """A copy of the Canal file `source` whose messages name `database`, so that its tables
    fold apart from the same-named tables of other cases in the module's one gold."""
    renamed = []
    for line in source.read_text(encoding="utf-8").splitlines():
        if line.strip():
            text, count = re.subn(r'"database":"[^"]*"', f'"database":"{database}"', line)
            assert count == 1, f"{source}: no single top-level database field in {line[:80]}"
            renamed.append(text)
    return write_lines(folder / f"{database}.{source.name}", renamed)


def canal_sort_key(msg: dict[str, Any]) -> list[str]:
    """The order of a Canal-family message: its `es`, the sequence number of its `gtid`,
    its `id` (-1 for what it lacks)."""
    gtid = re.search(r"([0-9]+)[^0-9]*$", msg.get("gtid") or "")
    return [str(msg.get("es", -1)), gtid.group(1) if gtid else "-1", str(msg.get("id", -1))]


def envelope(msg: dict[str, Any], vendor_format: str, table_id: str, offset: int) -> Row:
    """The silver columns every row of one message shares."""
    return {
        "vendor_format": vendor_format, "kafka_offset": offset, "vendor_op": msg["type"],
        "source_db": msg["database"], "source_schema": msg.get("schema"), "source_table": msg["table"],
        "table_id": table_id, "pk_columns": msg["pkNames"] or [], "tx_id": msg.get("gtid"),
        "event_ts": iso_ms(msg["es"]), "capture_ts": iso_ms(msg["ts"]), "sort_key": canal_sort_key(msg),
    }


def insert(row_index: int, after: Image, row_key: str, op: str = "INSERT") -> Row:
    return {"row_index": row_index, "op": op, "before": None, "after": after, "row_key": row_key,
            "before_row_key": None}


def update(row_index: int, before: Image, after: Image, row_key: str, before_row_key: str | None = None) -> Row:
    return {"row_index": row_index, "op": "UPDATE", "before": before, "after": after, "row_key": row_key,
            "before_row_key": before_row_key or row_key}


def delete(row_index: int, before: Image, row_key: str) -> Row:
    return {"row_index": row_index, "op": "DELETE", "before": before, "after": None, "row_key": row_key,
            "before_row_key": None}


def changes(lake: Lake, topic: str) -> list[Row]:
    """The silver.cdc_changes rows of `topic` in Kafka order, times as ISO-8601 UTC text."""
    return lake.rows(
        f"""select vendor_format, kafka_offset, row_index, op, vendor_op, source_db, source_schema, source_table,
                   table_id, pk_columns, row_key, before_row_key, before, after, tx_id,
                   {iso_sql("event_ts")}, {iso_sql("capture_ts")},
                   transform(sort_key, k -> cast(k as string)) as sort_key
            from silver.cdc_changes where topic = :topic order by kafka_offset, row_index""",
        topic=topic,
    )


def gold(lake: Lake, topic: str) -> dict[str, list[Image]]:
    """gold.cdc_current_rows of the tables that `topic` changes: table_id -> rows."""
    tables: dict[str, list[Image]] = {}
    for r in lake.rows(
        """select table_id, row from gold.cdc_current_rows
           where table_id in (select table_id from silver.cdc_changes where topic = :topic)""",
        topic=topic,
    ):
        tables.setdefault(r["table_id"], []).append(r["row"])
    return tables


def by_id(rows: list[Image], column: str = "id") -> list[Image]:
    return sorted(rows, key=lambda r: (len(r[column]), r[column]))


def flink_rows(expected: list[dict[str, Any]]) -> list[Image]:
    """Flink's typed rows (id INT, weight FLOAT) as our canonical text, sorted by id."""
    return by_id([{"id": str(r["id"]), "name": r["name"], "description": r["description"],
                   "weight": str(r["weight"])} for r in expected])


def flink_vector(name: str) -> dict[str, Any]:
    return next(v for v in FLINK["vectors"] if v["file"] == name)


def paimon_row(printed: str) -> tuple[str, ...]:
    """Paimon's Row.toString (`+I[1, 9, nine, [110, 105, 110], 9.9]`) as canonical text
    values: byte arrays as base64 of their bytes, NULL as NULL."""
    inner = printed.removeprefix("+I[").removesuffix("]")
    inner = re.sub(r"\[(-?\d+(?:, -?\d+)*)\]", lambda m: b64(bytes(int(b) & 255 for b in m.group(1).split(", "))),
                   inner)
    return tuple(inner.split(", "))


def paimon_state(lake: Lake, topic: str, columns: list[str]) -> list[tuple[str, ...]]:
    """The union of the gold tables of `topic` as Paimon's columns; a null or absent column is NULL."""
    rows = [row for table in gold(lake, topic).values() for row in table]
    return sorted(tuple("NULL" if row.get(c) is None else row[c] for c in columns) for row in rows)


def paimon_topic(scenario: str) -> str:
    return f"peer.paimon.{scenario}"


# ---------------------------------------------------------------------------- the lake


@dataclass(frozen=True)
class Built:
    lake: Lake
    # Paimon scenario -> file number -> gold state right after that file's build
    paimon_states: dict[str, dict[int, list[tuple[str, ...]]]]


def landings(vectors: Path, tmp: Path) -> list[tuple[str, str, Path]]:
    """(topic, declared format, file) of every case but Paimon's file-by-file scenarios."""
    canal, dts, drs = vectors / "canal_flatmessage", vectors / "dts_canal_json", vectors / "huawei_drs_json"
    dts_doc = (dts / "vendor_doc.ndjson").read_text(encoding="utf-8").splitlines()
    return [
        (CANAL_QUERY, "canal_json", canal / "canal_issue_3179_query_and_insert.ndjson"),
        (CANAL_FLINK, "canal_json", canal / "flink_canal_data.ndjson"),
        (CANAL_ALLTYPE, "canal_json", canal / "paimon_canal_alltype.ndjson"),
        (CANAL_EVENT, "canal_json", canal / "paimon_canal_event.ndjson"),
        (DTS_DOC_LEGACY_DELETE, "canal_json_legacy", write_lines(tmp / "dts_doc_legacy_delete.ndjson", dts_doc[:1])),
        (DTS_DOC_DELETE, "canal_json", write_lines(tmp / "dts_doc_delete.ndjson", dts_doc[1:2])),
        (DTS_DOC_DDL, "canal_json", dts / "vendor_doc_ddl_cleaned.ndjson"),
        (DTS_INIT, "canal_json", dts / "flink_canal_data_with_init_first2.ndjson"),
        (DTS_LEGACY, "canal_json_legacy", write_lines(tmp / "dts_legacy.ndjson", DTS_LEGACY_MESSAGES)),
        (DRS_MYSQL, "drs_json", drs / "mysql_update.ndjson"),
        (DRS_GAUSSDB, "drs_json", drs / "gaussdb_primary_standby_update.ndjson"),
        (DRS_JSON_C, "drs_json_c", write_lines(tmp / "drs_json_c.ndjson", DRS_JSON_C_MESSAGES)),
        (PEER_CANAL_DATA, "canal_json", with_database(PEERS / "flink" / "canal-data.txt", "peer_canal_data", tmp)),
        (PEER_FILTER_TABLE, "canal_json", PEERS / "flink" / "canal-data-filter-table.txt"),
        (PEER_WITH_INIT, "canal_json",
         with_database(PEERS / "flink" / "canal-data-with-init.txt", "peer_canal_data_with_init", tmp)),
        (PEER_FLINK_CDC, "canal_json", PEERS / "flink-cdc" / "mysqlToKafka" / "canal-json.txt.records.jsonl"),
    ]


# Paimon's scenarios land file by file over this many builds: file n in build min(n, 3),
# the files after the third in the third build, each a landing batch of its own
PAIMON_BUILDS = 3


def paimon_copies(scenario: dict[str, Any]) -> list[int]:
    """The file counts whose state gets a copy of its own (topic, database): those whose
    last file lands in the last build together with other files. The whole scenario
    (paimon_topic) shows the state after files 1 and 2, and after the last one."""
    return list(range(PAIMON_BUILDS, len(scenario["files_in_order"])))


def paimon_copy(name: str, files: int | None) -> tuple[str, str]:
    """(topic, database) of scenario `name` cut after `files` files (None: all of them)."""
    database = "peer_paimon_" + name.replace("-", "_")
    if files is None:
        return paimon_topic(name), database
    return f"{paimon_topic(name)}.after-{files}", f"{database}_after_{files}"


def land_examples(lake: Lake, tmp: Path) -> Iterator[None]:
    """Every case, then Paimon's files a batch each over PAIMON_BUILDS builds: the state
    after each file is read after the build that landed it, from the scenario or from a
    copy cut after that file (tests/examples/conftest.py)."""
    for topic, declared_format, path in landings(VECTORS, tmp):
        lake.land([path], topic=topic, declared_format=declared_format)
    states: dict[str, dict[int, list[tuple[str, ...]]]] = {name: {} for name in PAIMON_SCENARIOS}
    for build in range(1, PAIMON_BUILDS + 1):
        for name, scenario in PAIMON_SCENARIOS.items():
            files = scenario["files_in_order"]
            for cut in [*paimon_copies(scenario), None]:
                topic, database = paimon_copy(name, cut)
                for number in range(1, (cut or len(files)) + 1):
                    if min(number, PAIMON_BUILDS) == build:
                        source = PEERS / "paimon" / files[number - 1]["records_file"]
                        lake.land([with_database(source, database, tmp)], topic=topic,
                                  declared_format="canal_json")
        yield
        for name, scenario in PAIMON_SCENARIOS.items():
            last = len(scenario["files_in_order"])
            for checkpoint in scenario["checkpoints"]:
                number = checkpoint["after_file"]
                if min(number, PAIMON_BUILDS) == build:
                    # before the last build the whole scenario holds files 1..build
                    topic, _ = paimon_copy(name, None if build < PAIMON_BUILDS or number == last else number)
                    states[name][number] = paimon_state(lake, topic, checkpoint["columns"])
    return Built(lake, states)


# ---------------------------------------------------------------------------- silver: Canal FlatMessage


def test_canal_query_is_a_marker_and_the_insert_a_change(built, vectors):
    """canal#3179: a QUERY (rows-query event, database "", no data) is progress, not data:
    one heartbeat row with marker_kind OTHER; the INSERT after it is one change."""
    msgs = messages(vectors / "canal_flatmessage" / "canal_issue_3179_query_and_insert.ndjson")
    markers = built.lake.rows(
        f"""select kafka_offset, marker_kind, vendor_op, source_db, source_table, table_id, detail,
                  {iso_sql("event_ts")}, transform(sort_key, k -> cast(k as string)) as sort_key
           from silver.cdc_heartbeats where topic = :topic""",
        topic=CANAL_QUERY,
    )
    assert markers == [{
        "kafka_offset": 0, "marker_kind": "OTHER", "vendor_op": "QUERY", "source_db": "", "source_table": "t",
        "table_id": "t", "detail": "insert into t (id,name)values(27,'ly')", "event_ts": "2020-11-18T10:16:08.000Z",
        "sort_key": canal_sort_key(msgs[0]),
    }]
    assert changes(built.lake, CANAL_QUERY) == [
        {**envelope(msgs[1], "canal_json", "testclone.t", 1), **insert(0, {"id": "27", "name": "ly"}, key("27"))},
    ]


def test_canal_flink_sample_rows_images_and_partial_old(built, vectors):
    """Flink's Canal sample: a 9-row INSERT (row_index 0..8), UPDATEs whose `old` holds only
    the changed columns (before = data overlaid with old), a 2-row UPDATE and a 2-row DELETE
    (row in `data`); the CREATE TABLE is not a change (see the DDL test)."""
    msgs = messages(vectors / "canal_flatmessage" / "flink_canal_data.ndjson")

    def env(offset: int) -> Row:
        return envelope(msgs[offset], "canal_json", "inventory.products2", offset)

    def product(id_: str, name: str, description: str, weight: str) -> Image:
        return {"id": id_, "name": name, "description": description, "weight": weight}

    jacket = product("110", "jacket", "water resistent white wind breaker", "0.2")
    new_jacket = product("110", "jacket", "new water resistent white wind breaker", "0.5")
    scooter = product("111", "scooter", "Big 2-wheel scooter ", "5.18")
    assert changes(built.lake, CANAL_FLINK) == [
        *({**env(0), **insert(i, row, key(row["id"]))} for i, row in enumerate(msgs[0]["data"])),
        {**env(1), **update(0, product("106", "hammer", "16oz carpenter's hammer", "1.0"),
                            product("106", "hammer", "18oz carpenter hammer", "1.0"), key("106"))},
        {**env(2), **update(0, product("107", "rocks", "box of assorted rocks", "5.3"),
                            product("107", "rocks", "box of assorted rocks", "5.1"), key("107"))},
        {**env(3), **insert(0, jacket, key("110"))},
        {**env(4), **insert(0, scooter, key("111"))},
        {**env(5), **update(0, jacket, new_jacket, key("110"))},
        {**env(6), **update(0, scooter, {**scooter, "weight": "5.17"}, key("111"))},
        {**env(7), **delete(0, {**scooter, "weight": "5.17"}, key("111"))},
        {**env(8), **update(0, product("101", "scooter", "Small 2-wheel scooter", "3.14"),
                            product("101", "scooter", "Small 2-wheel scooter", "5.17"), key("101"))},
        {**env(8), **update(1, product("102", "car battery", "12V car battery", "8.1"),
                            product("102", "car battery", "12V car battery", "5.17"), key("102"))},
        {**env(10), **delete(0, product("102", "car battery", "12V car battery", "5.17"), key("102"))},
        {**env(10), **delete(1, product("103", "12-pack drill bits",
                                        "12-pack of drill bits with sizes ranging from #40 to #3", "0.8"), key("103"))},
    ]


def test_canal_all_types_canonical_values(built, vectors):
    """Paimon's all-type Canal message: binary and geometry columns (ISO-8859-1 text in
    Canal) become base64 of their bytes (BINARY(n) padded to n), ENUM index and SET bitmask their labels, decimals
    keep every digit, JSON loses only its whitespace, temporal and other values stay as
    written; row 2's JSON nulls stay null values of present keys."""
    (msg,) = messages(vectors / "canal_flatmessage" / "paimon_canal_alltype.ndjson")
    first, second = msg["data"]
    binary = ("_bin", "_varbin", "_tinyblob", "_blob", "_mediumblob", "_longblob", "_point", "_geometry",
              "_linestring", "_polygon", "_multipoint", "_multiline", "_multipolygon", "_geometrycollection")
    converted = {**first, **{c: b64(first[c].encode("latin-1")) for c in binary}, "_enum": "value1", "_set": "a,b",
                 "_json": '{"a":"b"}',
                 # BINARY(10): the trailing zero bytes the binlog strips, as MySQL returns them
                 "_bin": b64(first["_bin"].encode("latin-1").ljust(10, b"\x00"))}
    rows = changes(built.lake, CANAL_ALLTYPE)
    assert rows == [
        {**envelope(msg, "canal_json", "paimon_sync_table.all_types_table", 0), **insert(0, converted, key("1"))},
        {**envelope(msg, "canal_json", "paimon_sync_table.all_types_table", 0), **insert(1, second, key("2"))},
    ]
    after = rows[0]["after"]
    assert after["_bin"] == "Ynl0ZXMAAAAAAA==" and base64.b64decode(after["_longblob"]) == b"LONGBLOB  bytes test data"
    assert after["_fixed"] == "123456789876543212345678987654321.110" and after["_numeric"] == "12345.110"
    assert after["_datetime6"] == "2023-03-23 14:30:05.123456" and after["_timestamp"] == "2023-03-23 15:00:10.123456"
    assert after["_json"] == '{"a":"b"}' and after["_float"] == "1.5" and after["_year"] == "2023"
    # MySQL geometry = 4-byte SRID + WKB: POINT(1 1), little-endian
    assert struct.unpack("<IBIdd", base64.b64decode(after["_point"])) == (0, 1, 1, 1.0, 1.0)
    assert "_fixed" in rows[1]["after"] and rows[1]["after"]["_fixed"] is None


def test_canal_paimon_event_messages(built, vectors):
    """Paimon's event messages: a 2-row INSERT, an UPDATE whose data holds a JSON null
    (v2, kept as a null value in both images) and a DELETE with the row in `data`."""
    msgs = messages(vectors / "canal_flatmessage" / "paimon_canal_event.ndjson")
    event, se1, se2 = ("paimon_sync_table." + t for t in ("event", "schema_evolution_1", "schema_evolution_2"))
    assert changes(built.lake, CANAL_EVENT) == [
        {**envelope(msgs[0], "canal_json", event, 0), **insert(0, {"pt": "1", "_id": "1", "v1": "one"}, key("1"))},
        {**envelope(msgs[1], "canal_json", event, 1), **insert(0, {"pt": "1", "_id": "2", "v1": "two"}, key("2"))},
        {**envelope(msgs[1], "canal_json", event, 1), **insert(1, {"pt": "2", "_id": "4", "v1": "four"}, key("4"))},
        {**envelope(msgs[2], "canal_json", se2, 2),
         **update(0, {"pt": "1", "_id": "2", "v1": "two", "v2": None},
                  {"pt": "1", "_id": "2", "v1": "second", "v2": None}, key("2"))},
        {**envelope(msgs[3], "canal_json", se1, 3), **delete(0, {"pt": "1", "_id": "1", "v1": "one"}, key("1"))},
    ]


# ---------------------------------------------------------------------------- silver: DTS Canal Json


def test_dts_document_delete_after_2022_03_20(built, vectors):
    """The document's new-style DELETE: the row in `data`, shipping_type JSON null kept."""
    msg = json.loads((vectors / "dts_canal_json" / "vendor_doc.ndjson").read_text(encoding="utf-8").splitlines()[1])
    assert changes(built.lake, DTS_DOC_DELETE) == [
        {**envelope(msg, "canal_json", "dbname.tablename", 0),
         **delete(0, {"id": "500000287", "shipping_type": None}, key("500000287"))},
    ]


def test_dts_document_legacy_delete_without_its_key_is_rejected(built):
    """The document's pre-2022 DELETE carries its row in `old`, but that row lacks the key
    column `id` (pkNames ["id"]): no row can be identified, so it is a reject with that
    reason (kept, not dropped), not a change."""
    rejects = built.lake.rows(
        "select vendor_format, reject_stage, reject_reason from silver.cdc_rejects where topic = :topic",
        topic=DTS_DOC_LEGACY_DELETE,
    )
    assert [(r["vendor_format"], r["reject_stage"]) for r in rejects] == [("canal_json_legacy", "decode")]
    assert rejects[0]["reject_reason"].startswith("a row lacks primary key column(s) id (pkNames)")
    assert changes(built.lake, DTS_DOC_LEGACY_DELETE) == []


def test_dts_legacy_update_and_delete_swap_the_images(built):
    """canal_json_legacy (hand-built from the document's description): UPDATE `data` is the
    before image and `old` the after image (full, or partial overlaid by key presence);
    DELETE's row is in `old`; `gtid` is the tx_id."""
    msgs = [json.loads(m) for m in DTS_LEGACY_MESSAGES]
    rows = changes(built.lake, DTS_LEGACY)
    assert rows == [
        {**envelope(msgs[0], "canal_json_legacy", "dbname.orders", 0),
         **update(0, {"id": "500000287", "shipping_type": "aaa", "note": None},
                  {"id": "500000287", "shipping_type": "bbb", "note": "first"}, key("500000287"))},
        {**envelope(msgs[0], "canal_json_legacy", "dbname.orders", 0),
         **update(1, {"id": "500000288", "shipping_type": "aaa", "note": "x"},
                  {"id": "500000288", "shipping_type": "aaa", "note": None}, key("500000288"))},
        {**envelope(msgs[1], "canal_json_legacy", "dbname.orders", 1),
         **delete(0, {"id": "500000288", "shipping_type": "aaa", "note": None}, key("500000288"))},
    ]
    assert rows[0]["tx_id"] == "4f0c0bd5-f3b9-11ea-8f3c-00163e0e8d1a:1532"
    assert gold(built.lake, DTS_LEGACY) == {
        "dbname.orders": [{"id": "500000287", "shipping_type": "bbb", "note": "first"}]}


def test_dts_init_is_a_snapshot_and_old_nulls_are_kept(built, vectors):
    """DTS full load: type INIT -> op SNAPSHOT, 9 rows (row 0 has an extra column `other`,
    row 5 a JSON-null description). The UPDATE's `old` = {"description": null, "other":
    "val2"}: before = data overlaid with old, so description is a null value (present),
    and other is val2."""
    msgs = messages(vectors / "dts_canal_json" / "flink_canal_data_with_init_first2.ndjson")
    rows = changes(built.lake, DTS_INIT)
    assert rows == [
        *({**envelope(msgs[0], "canal_json", "inventory.products2", 0), **insert(i, row, key(row["id"]), "SNAPSHOT")}
          for i, row in enumerate(msgs[0]["data"])),
        {**envelope(msgs[1], "canal_json", "inventory.products2", 1),
         **update(0, {"id": "106", "name": "hammer", "description": None, "weight": "1.0", "other": "val2"},
                  {"id": "106", "name": "hammer", "description": "18oz carpenter hammer", "weight": "1.0",
                   "other": "val0"}, key("106"))},
    ]
    assert [(r["op"], r["vendor_op"]) for r in rows[:9]] == [("SNAPSHOT", "INIT")] * 9
    assert rows[0]["after"]["other"] == "val1" and "other" not in rows[1]["after"]
    assert "description" in rows[5]["after"] and rows[5]["after"]["description"] is None
    assert "description" in rows[9]["before"] and rows[9]["before"]["description"] is None


def test_ddl_events_keep_what_cannot_be_parsed(built):
    """Canal's CREATE TABLE is parsed (sqlglot UDF); the DTS document's "eg:createxxx" is
    not SQL: kept with ddl_action UNKNOWN and a parse error, not dropped."""
    query = f"""select topic, kafka_offset, vendor_format, vendor_op, source_db, source_table, table_id, ddl_text,
                      ddl_action, ddl_object_kind, ddl_table_db, ddl_table_name, ddl_columns, ddl_parse_error,
                      ddl_parse_dialect, ddl_statement_count, {iso_sql("event_ts")}
               from silver.cdc_ddl_events where topic in (:canal, :dts) order by topic"""
    canal, dts = built.lake.rows(query, canal=CANAL_FLINK, dts=DTS_DOC_DDL)
    assert canal == {
        "topic": CANAL_FLINK, "kafka_offset": 9, "vendor_format": "canal_json", "vendor_op": "CREATE",
        "source_db": "inventory", "source_table": "user02", "table_id": "inventory.user02",
        "ddl_text": "CREATE TABLE `xj_`.`user02` (`uid` int(0) NOT NULL,`uname` varchar(255) NULL, "
                    "PRIMARY KEY (`uid`))",
        "ddl_action": "CREATE", "ddl_object_kind": "TABLE", "ddl_table_db": "xj_", "ddl_table_name": "user02",
        "ddl_columns": [{"name": "uid", "type": "INT(0)", "change": "ADD", "new_name": None, "position": 1},
                        {"name": "uname", "type": "VARCHAR(255)", "change": "ADD", "new_name": None, "position": 2}],
        "ddl_parse_error": None, "ddl_parse_dialect": "mysql", "ddl_statement_count": 1,
        "event_ts": "2020-05-13T12:39:26.000Z",
    }
    assert {k: v for k, v in dts.items() if k != "ddl_parse_error"} == {
        "topic": DTS_DOC_DDL, "kafka_offset": 0, "vendor_format": "canal_json", "vendor_op": "DDL",
        "source_db": "dbname", "source_table": "tablename", "table_id": "dbname.tablename",
        "ddl_text": "eg:createxxx", "ddl_action": "UNKNOWN", "ddl_object_kind": None, "ddl_table_db": None,
        "ddl_table_name": None, "ddl_columns": [], "ddl_parse_dialect": "mysql", "ddl_statement_count": 1,
        "event_ts": "2020-09-15T09:24:54.000Z",
    }
    assert dts["ddl_parse_error"]


# ---------------------------------------------------------------------------- silver: Huawei DRS


def test_drs_mysql_update_with_key_change(built, vectors):
    """The DRS document's MySQL example, value by value: a PK-changing UPDATE (103 -> 104)
    with a full before image in `old`; binary as Java byte arrays -> base64 ("[]" -> "");
    TIMESTAMP epoch seconds.millis -> ISO-8601 UTC; DOUBLE in Java notation -> plain
    digits; FLOAT and DECIMAL kept; unicode intact; table "test " keeps its blank in
    source_table, not in table_id; sort_key is DRS's event sequence `id`."""
    (msg,) = messages(vectors / "huawei_drs_json" / "mysql_update.ndjson")
    c12 = b64(b"jgojgoidsjgojosog934094309tjhrgjew9tu09340teroejg98304ieurg9ewurg0weut9r04u095tu3092ut093ut0w9e")
    c14 = b64(b'jgojgoidsjgojosog934094309tjhrgjew9tu09340teroejg98304i79846546661465!@#$%^*()_)+_+|}"?>::'
              b"eurg9ewurg0weut9r04u095tu3092ut093ut0w9e")
    after = {
        "id": "104", "c1": "cf3f70a7-7565-44b0-ae3c-83bec549ea8e:104", "c2": "", "c3": "103",
        "c4": "2021-06-25 17:51:53", "c5": "2021-06-25T09:51:53.201Z", "c6": "!@#$%90weurtg103", "c7": "10357.0",
        "c8": "12510357", "c9": "9874510357", "c10": "华为云huaweicloud",
        "c11": "", "c12": c12, "c13": "asfiajhfiaf939-0239uoituqorjoqirfoidjfqrniowejoiwqjroqwjrowqjojoiqgoiegnkjgoi23"
                                  "roiugouofdug9u90weurtg103", "c14": c14,
    }
    before = {**after, "id": "103", "c13": "asfiajhfiaf939-0239"}
    assert changes(built.lake, DRS_MYSQL) == [{
        "vendor_format": "drs_json", "kafka_offset": 0, "row_index": 0, "op": "UPDATE", "vendor_op": "UPDATE",
        "source_db": "test01", "source_schema": None, "source_table": "test ", "table_id": "test01.test",
        "pk_columns": ["id"], "row_key": '["104"]', "before_row_key": '["103"]', "before": before, "after": after,
        "tx_id": None, "event_ts": "2021-06-25T09:51:53.000Z", "capture_ts": "2021-06-30T13:12:06.990Z",
        "sort_key": ["1624614713000", "-1", "27677"],
    }]
    (types,) = built.lake.rows("select column_types from silver.cdc_changes where topic = :t", t=DRS_MYSQL)
    assert types["column_types"] == msg["mysqlType"]
    # the key move: gold holds 104, not 103
    assert [r["id"] for r in gold(built.lake, DRS_MYSQL)["test01.test"]] == ["104"]


def test_drs_gaussdb_update_without_key(built, vectors):
    """The DRS document's GaussDB example (columnType, dbType, schema, opType): table_id
    database.schema.table; bytea hex -> base64; pkNames null -> unkeyed, so row_key is the
    whole row as JSON (columns sorted); text timestamps, booleans, ranges as written; JSON
    without its whitespace."""
    (msg,) = messages(vectors / "huawei_drs_json" / "gaussdb_primary_standby_update.ndjson")
    before = {
        "timestamp_column": "2014-07-02 06:14:00.742",
        "tstzrange_column": '("2010-01-01 14:30:00+08","2010-01-01 15:30:00+08")',
        "int4range_column": "[11,20)", "char_column": "g", "jsonb_column": '{"key1":"value1","key2":"value2"}',
        "boolean_column": "true", "bit_column": "1", "smallint_column": "12", "bytea_column": b64(b"bytea_data"),
    }
    after = {**before, "timestamp_column": "2021-12-16 12:31:49.344365", "boolean_column": "false"}
    assert changes(built.lake, DRS_GAUSSDB) == [{
        "vendor_format": "drs_json", "kafka_offset": 0, "row_index": 0, "op": "UPDATE", "vendor_op": "UPDATE",
        "source_db": "database01", "source_schema": "schema01", "source_table": "table01",
        "table_id": "database01.schema01.table01", "pk_columns": [], "row_key": whole_row_key(after),
        "before_row_key": whole_row_key(before), "before": before, "after": after, "tx_id": None,
        "event_ts": "2021-12-16T03:43:07.000Z", "capture_ts": "2021-12-16T04:34:21.915Z",
        "sort_key": ["1639626187000", "-1", "332"],
    }]
    (types,) = built.lake.rows("select column_types from silver.cdc_changes where topic = :t", t=DRS_GAUSSDB)
    assert types["column_types"] == msg["columnType"]


def test_drs_json_c_delete_in_data_and_text_timestamps(built):
    """DRS JSON-C (hand-built from the document's description): DELETE's row is in `data`;
    TIMESTAMP text is kept as given; Gson escapes decode; DOUBLE 1.0E-4 -> 0.0001; signed
    Java bytes [-1, 0, 127] -> base64 of ff 00 7f; sort_key is `id`; the fold deletes the row."""
    msgs = [json.loads(m) for m in DRS_JSON_C_MESSAGES]
    inserted = {"id": "7", "name": "a<b&c", "price": "19.90", "amount": "0.0001", "updated_at": "2021-06-25 17:51:53",
                "created": "2021-06-25 17:51:53", "payload": "/wB/"}  # base64 of ff 00 7f
    updated = {**inserted, "price": "21.00", "updated_at": "2021-06-25 18:00:00", "payload": ""}
    assert changes(built.lake, DRS_JSON_C) == [
        {**envelope(msgs[0], "drs_json_c", "drs_shop.orders", 0), **insert(0, inserted, key("7"))},
        {**envelope(msgs[1], "drs_json_c", "drs_shop.orders", 1), **update(0, inserted, updated, key("7"))},
        {**envelope(msgs[2], "drs_json_c", "drs_shop.orders", 2), **delete(0, updated, key("7"))},
    ]
    assert gold(built.lake, DRS_JSON_C) == {}


def test_nothing_else_is_rejected_or_a_marker(built):
    """Across every case of the module (peer files included): the one reject is the DTS
    document's keyless legacy DELETE and the one marker Canal's QUERY."""
    topics = [CANAL_QUERY, CANAL_FLINK, CANAL_ALLTYPE, CANAL_EVENT, DTS_DOC_LEGACY_DELETE, DTS_DOC_DELETE,
              DTS_DOC_DDL, DTS_INIT, DTS_LEGACY, DRS_MYSQL, DRS_GAUSSDB, DRS_JSON_C, PEER_CANAL_DATA,
              PEER_FILTER_TABLE, PEER_WITH_INIT, PEER_FLINK_CDC,
              *(paimon_copy(name, cut)[0] for name, scenario in PAIMON_SCENARIOS.items()
                for cut in [*paimon_copies(scenario), None])]
    rejects = built.lake.rows("select topic from silver.cdc_rejects where array_contains(:topics, topic)",
                              topics=topics)
    markers = built.lake.rows("select topic from silver.cdc_heartbeats where array_contains(:topics, topic)",
                              topics=topics)
    assert [r["topic"] for r in rejects] == [DTS_DOC_LEGACY_DELETE]
    assert [r["topic"] for r in markers] == [CANAL_QUERY]


# ---------------------------------------------------------------------------- gold: peer test suites


def test_flink_canal_data_final_state(built):
    """Flink's canal-data.txt folds to the final state of CanalJsonSerDeSchemaTest."""
    expected = flink_rows(flink_vector("canal-data.txt")["expected_final_state"])
    assert {t: by_id(rows) for t, rows in gold(built.lake, PEER_CANAL_DATA).items()} == {
        "peer_canal_data.products2": expected}


def test_flink_canal_filter_table_keeps_every_table(built):
    """Flink's testFilteringTables keeps only database ^my.* and table ^prod.*: those tables
    (mydb.product) fold to its expected state. We deliberately keep every table, each apart:
    mydb.orders and mydb.project fold too (states derived by hand from the file)."""
    def order(number: str, date: str, purchaser: str, quantity: str, product: str) -> Image:
        return {"order_number": number, "order_date": date, "purchaser": purchaser, "quantity": quantity,
                "product_id": product}

    tables = gold(built.lake, PEER_FILTER_TABLE)
    filtered = {t: rows for t, rows in tables.items()
                if re.fullmatch("^my.*", t.split(".")[0]) and re.fullmatch("^prod.*", t.split(".")[1])}
    assert {t: by_id(rows) for t, rows in filtered.items()} == {
        "mydb.product": flink_rows(flink_vector("canal-data-filter-table.txt")["expected_final_state"])}
    assert set(tables) == {"mydb.product", "mydb.orders", "mydb.project"}
    assert by_id(tables["mydb.orders"], "order_number") == [
        order("10001", "2016-01-16", "1001", "3", "102"),   # quantity 1 -> 3
        order("10003", "2016-02-19", "1002", "2", "106"),   # 10002 deleted
        order("10004", "2016-02-21", "1003", "1", "107"),
    ]
    assert [r["id"] for r in by_id(tables["mydb.project"])] == [f"A{n}" for n in range(101, 110)]


def test_flink_canal_with_init_we_accept_init_as_snapshot(built):
    """Flink 2.3 REJECTS canal-data-with-init.txt ('Unknown "type" value "INIT"'); we
    deliberately accept more: INIT (DTS full load) is a SNAPSHOT, so the final state is the
    9 INIT rows plus the later changes, derived by hand from the file. Unknown columns are
    kept: 106's UPDATE brings other=val0; 101's UPDATE `data` has no `other`, so the val1
    of its INIT row is gone (a full after image replaces the row)."""
    assert {t: by_id(rows) for t, rows in gold(built.lake, PEER_WITH_INIT).items()} == {
        "peer_canal_data_with_init.products2": [
            {"id": "101", "name": "scooter", "description": "Small 2-wheel scooter", "weight": "5.17"},
            {"id": "104", "name": "hammer", "description": "12oz carpenter's hammer", "weight": "0.75"},
            {"id": "105", "name": "hammer", "description": "14oz carpenter's hammer", "weight": "0.875"},
            {"id": "106", "name": "hammer", "description": "18oz carpenter hammer", "weight": "1.0", "other": "val0"},
            {"id": "107", "name": "rocks", "description": "box of assorted rocks", "weight": "5.1"},
            {"id": "108", "name": "jacket", "description": "water resistent black wind breaker", "weight": "0.1"},
            {"id": "109", "name": "spare tire", "description": "24 inch spare tire", "weight": "22.2"},
            {"id": "110", "name": "jacket", "description": "new water resistent white wind breaker", "weight": "0.5"},
        ]}
    ops = built.lake.rows("select op, count(*) as n from silver.cdc_changes where topic = :t group by op",
                          t=PEER_WITH_INIT)
    assert {r["op"]: r["n"] for r in ops} == {"SNAPSHOT": 9, "UPDATE": 6, "INSERT": 2, "DELETE": 3}


def test_flink_cdc_canal_json_typed_values(built):
    """Flink CDC writes typed JSON (numbers as JSON numbers, a full `old`, no es/ts/id):
    the final `products` rows (id, name, description, weight) are those of
    flink-cdc/expected.json; "$databaseName" is kept as the database name (mixed case: as written). A JSON number
    becomes the plain digits of its exact value, not of its written scale (Spark's VARIANT
    keeps values, not scales): weight 1.0 is "1", so weights compare as exact decimals."""
    tables = gold(built.lake, PEER_FLINK_CDC)
    assert set(tables) == {"$databaseName.customers", "$databaseName.products"}
    ours = by_id([{c: row[c] for c in ("id", "name", "description", "weight")}
                  for row in tables["$databaseName.products"]])
    expected = flink_rows(FLINK_CDC["expected_final_state_products"]["rows"])
    assert [{**r, "weight": Decimal(r["weight"])} for r in ours] == \
        [{**r, "weight": Decimal(r["weight"])} for r in expected]
    assert [r["weight"] for r in ours] == ["3.14", "8.1", "0.8", "0.75", "0.875", "1", "5.1", "0.1", "22.2", "0.5"]


def test_paimon_canal_schemaevolution_scenario(built):
    """Paimon's testSchemaEvolution, checked after every file: the union of the topic's
    tables (Paimon syncs them into one) equals Paimon's rows; byte arrays compare as base64,
    NULL as a null or absent column. The ALTER messages are DDL events, not rejects."""
    scenario = PAIMON_SCENARIOS["canal-schemaevolution"]
    for checkpoint in scenario["checkpoints"]:
        number = checkpoint["after_file"]
        assert built.paimon_states["canal-schemaevolution"][number] == sorted(
            paimon_row(r) for r in checkpoint["rows"]), f"after file {number}"
    (ddl,) = built.lake.rows("select count(*) as n, collect_set(ddl_action) as actions from silver.cdc_ddl_events "
                             "where topic = :t", t=paimon_topic("canal-schemaevolution"))
    assert (ddl["n"], ddl["actions"]) == (16, ["ALTER"])


def test_paimon_canal_event_scenario(built):
    """Paimon's testCDCOperations, checked after every file. Paimon merges the topic's
    tables (event, schema_evolution_1, schema_evolution_2) into one table keyed by _id, so
    the UPDATE of schema_evolution_2 replaces event's row 2 and the DELETE from
    schema_evolution_1 removes event's row 1. We deliberately keep each table apart: event's
    rows 1 and 2 survive those changes of other tables (CANAL_EVENT_KEPT_APART); everything
    else equals Paimon's rows."""
    for checkpoint in PAIMON_SCENARIOS["canal-event"]["checkpoints"]:
        number = checkpoint["after_file"]
        expected = checkpoint["rows"] + CANAL_EVENT_KEPT_APART.get(number, [])
        assert built.paimon_states["canal-event"][number] == sorted(paimon_row(r) for r in expected), \
            f"after file {number}"
