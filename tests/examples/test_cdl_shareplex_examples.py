"""Huawei MRS CDL JSON (`cdl_json`, message_version 1.0) and Alibaba DTS "Shareplex Json"
(`shareplex_json`): every example of the vendor documents and vectors decodes to the
silver rows it describes, the hard cases the documents imply decode and fold as stated,
malformed messages of each shape are rejects with their reasons, and a generated stream
rendered in each format folds in gold to the plain-Python fold.

Sources: vendor-docs/huawei-cdl-json-debezium.zh.txt (the 1.0 example) and
vendor-docs/alibaba-dts-kafka-formats.ja.txt (Shareplex Json), tests/vectors/huawei_cdl and
tests/vectors/dts_shareplex_json (see their SOURCES.md). Messages the documents only
describe are built by hand below. Times: CDL TIMESTAMP and Connect Timestamp are epoch ms
(instants, shown in UTC); Shareplex `time`/`posttime` are UTC wall-clock text.

Every case lands under its own topic in the examples lake (tests/examples/conftest.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import synth
from renderers import cdl_json, shareplex_json
from streams_support import rows_as_multisets, state_as_multisets

if TYPE_CHECKING:
    from cdclake.lake import Lake

Row = dict[str, Any]
Image = dict[str, str | None]

CDL_DOC = "ex.cdl.doc"
CDL_HAND = "ex.cdl.hand"
CDL_BAD = "ex.cdl.bad"
SP_DOC = "ex.sp.doc"
SP_DOC_COMPLETED = "ex.sp.doc-completed"
SP_HAND = "ex.sp.hand"
SP_BAD = "ex.sp.bad"
GEN_CDL = "gen.cdl_json"
GEN_SP = "gen.shareplex_json"
TOPICS = [CDL_DOC, CDL_HAND, CDL_BAD, SP_DOC, SP_DOC_COMPLETED, SP_HAND, SP_BAD, GEN_CDL, GEN_SP]
VECTORS = Path(__file__).resolve().parents[1] / "vectors"

TS = "org.apache.kafka.connect.data.Timestamp"
DECIMAL = "org.apache.kafka.connect.data.Decimal"
CDL_DECIMAL = "com.xxx.cdc.data.Decimal"


# ---------------------------------------------------------------------------- CDL messages


def field(name: str, type_: str, logical: str | None = None, **extra: Any) -> dict[str, Any]:
    f: dict[str, Any] = {"type": type_, "optional": True, "field": name, **extra}
    if logical:
        f["name"] = logical
    return f


def cdl(owner: str, table: str, op: str, fields: list[dict[str, Any]], *, data: Row | None = None,
        before: Row | None = None, unique: Row | None = None, key_fields: list[str] = (),
        properties: list[tuple[str, int]] | None = None, ts: int = 1707047996013, lob: str | None = None,
        store: str = "POSTGRESQL") -> str:
    """A CDL JSON 1.0 message shaped like the vendor's example."""
    by_name = {f["field"]: f for f in fields}
    schema = {"type": "struct", "optional": False, "name": f"{owner}.{table}", "fields": [
        {"type": "string", "optional": False, "field": "DATA_STORE"},
        {"type": "string", "optional": False, "field": "SEG_OWNER"},
        {"type": "string", "optional": False, "field": "TABLE_NAME"},
        {"type": "int64", "optional": False, "name": TS, "version": 1, "field": "TIMESTAMP"},
        {"type": "string", "optional": False, "field": "OPERATION"},
        {"type": "string", "optional": True, "field": "LOB_COLUMNS"},
        {"type": "struct", "optional": True, "name": "unique", "field": "unique",
         "fields": [by_name[k] for k in key_fields]},
        {"type": "struct", "optional": True, "name": "data", "field": "data", "fields": fields},
        {"type": "struct", "optional": True, "name": "before", "field": "before", "fields": fields},
        {"type": "string", "optional": False, "field": "message_version"},
    ]}
    payload = {"DATA_STORE": store, "SEG_OWNER": owner, "TABLE_NAME": table, "TIMESTAMP": ts, "OPERATION": op,
               "LOB_COLUMNS": lob, "unique": unique, "data": data, "before": before, "message_version": "1.0",
               "message_type": "0", "HEARTBEAT_IDENTIFIER": "279fb050-0143-45c1-b184-50bc48c2461c"}
    if properties is not None:
        payload["transaction"] = {"properties": [{"name": n, "value": v} for n, v in properties]}
    return json.dumps({"schema": schema, "payload": payload}, ensure_ascii=False)


TYPED_FIELDS = [
    field("id", "int64"), field("ts_col", "int64", TS), field("d_col", "int32", "org.apache.kafka.connect.data.Date"),
    field("t_col", "int32", "org.apache.kafka.connect.data.Time"),
    field("t0_col", "int32", "org.apache.kafka.connect.data.Time"),
    field("dec_bytes", "bytes", DECIMAL, parameters={"scale": "2"}),
    field("neg_dec", "bytes", DECIMAL, parameters={"scale": "3"}), field("dec_text", "string", CDL_DECIMAL),
    field("wide_dec", "bytes", DECIMAL, parameters={"scale": "30"}),
    field("f64", "float64"), field("f32", "float32"), field("raw", "bytes"), field("flag", "boolean"),
    field("txt", "string"), field("nested", "struct"), field("nul", "int64"), field("big", "int64"),
]
TYPED_JSON = ('{"id":1,"ts_col":1707047996013,"d_col":19757,"t_col":45296789,"t0_col":3600000,'
              '"dec_bytes":"AeJA","neg_dec":"+w==","dec_text":"123456789876543212345678987654321.110",'
              '"wide_dec":"4f1D4Wh6dCOTRq+nDL2ygsWAE4T8HZlxwPUu",'
              '"f64":1.2510357E7,"f32":0.25,"raw":"/wB/","flag":true,"txt":"华为云 🚀","nested":{"a":1,"b":[1,2]},'
              '"nul":null,"big":9223372036854775807}')
TYPED_AFTER: Image = {
    "id": "1", "ts_col": "2024-02-04T11:59:56.013Z", "d_col": "2024-02-04", "t_col": "12:34:56.789",
    "t0_col": "01:00:00", "dec_bytes": "1234.56", "neg_dec": "-0.005",
    "dec_text": "123456789876543212345678987654321.110",
    # a DECIMAL(65,30) value: 27 bytes, more than any Spark decimal holds
    "wide_dec": "-12345678901234567890123456789012345.123456789012345678901234567890",
    "f64": "12510357", "f32": "0.25", "raw": "/wB/",
    "flag": "true", "txt": "华为云 🚀", "nested": '{"a":1,"b":[1,2]}', "nul": None, "big": "9223372036854775807",
}
DOC_FIELDS = [field("id", "int32"), field("title", "string"), field("body", "string")]
LINE_FIELDS = [field("a_line", "int32"), field("z_order", "int64"), field("sku", "string")]
EMP_FIELDS = [field("EMPNO", "int64"), field("ENAME", "string")]


def typed_message() -> str:
    """A message with one column of every Connect type (the JSON text is written by hand
    so that the float keeps its exponent and the decimal its digits)."""
    text = cdl("public", "typed", "INSERT", TYPED_FIELDS, data={"PLACEHOLDER": 0}, unique={"id": 1},
               key_fields=["id"], properties=[("lsn", 163955221100), ("txId", 57227600)])
    return text.replace('{"PLACEHOLDER": 0}', TYPED_JSON)


CDL_HAND_MESSAGES = [
    typed_message(),
    cdl("public", "docs", "INSERT", DOC_FIELDS, data={"id": 1, "title": "a", "body": "long text"}, unique={"id": 1},
        key_fields=["id"], properties=[("lsn", 200), ("txId", 10)], lob="body"),
    # the LOB `body` is unchanged, so CDL leaves it out of `data`: after image partial
    cdl("public", "docs", "UPDATE", DOC_FIELDS, data={"id": 1, "title": "b"},
        before={"id": 1, "title": "a", "body": "long text"}, unique={"id": 1}, key_fields=["id"],
        properties=[("lsn", 300), ("txId", 11)], lob="body"),
    cdl("public", "docs", "INSERT", DOC_FIELDS, data={"id": 2, "title": "c", "body": None}, unique={"id": 2},
        key_fields=["id"], properties=[("lsn", 400), ("txId", 12)], lob="body"),
    # PostgreSQL without REPLICA IDENTITY FULL: no before image, only the key
    cdl("public", "docs", "DELETE", DOC_FIELDS, unique={"id": 2}, key_fields=["id"],
        properties=[("lsn", 500), ("txId", 13)], lob="body"),
    # key fields declared z_order, a_line: the key keeps that order (not alphabetical)
    cdl("public", "lines", "INSERT", LINE_FIELDS, data={"a_line": 2, "z_order": 10, "sku": "S-1"},
        unique={"z_order": 10, "a_line": 2}, key_fields=["z_order", "a_line"], properties=[("lsn", 600), ("txId", 14)]),
    # an Oracle source: an SCN instead of an LSN, no txId
    cdl("SCOTT", "EMP", "INSERT", EMP_FIELDS, data={"EMPNO": 7369, "ENAME": "SMITH"}, unique={"EMPNO": 7369},
        key_fields=["EMPNO"], properties=[("scn", 14589063118712)], store="ORACLE"),
    # no transaction properties at all: ordered by TIMESTAMP
    cdl("SCOTT", "EMP", "INSERT", EMP_FIELDS, data={"EMPNO": 7499, "ENAME": "ALLEN"}, unique={"EMPNO": 7499},
        key_fields=["EMPNO"], ts=1707047996999, store="ORACLE"),
    # a row of CDL's heartbeat table: a marker
    cdl("cdc_cdl", "cdc_heartbeat", "UPDATE",
        [field("CDL_JOB_ID", "string"), field("CDL_LAST_HEARTBEAT", "int64", TS)],
        data={"CDL_JOB_ID": "7", "CDL_LAST_HEARTBEAT": 1707047996013}, properties=[("lsn", 700), ("txId", 15)]),
]

_OK = dict(unique={"id": 1}, key_fields=["id"], properties=[("lsn", 1), ("txId", 1)])
CDL_BAD_MESSAGES = [
    ("not json", "value is not valid JSON"),
    ("[1, 2]", "value is a JSON array, not an object"),
    ('{"schema": {}}', 'no "payload" object (CDL JSON is {"schema", "payload"})'),
    (cdl("public", "bad", "INSERT", DOC_FIELDS, data={"id": 1}, **_OK).replace('"1.0"', '"2.0"'),
     'payload.message_version is "2.0", not "1.0" (2.0 is debezium_json)'),
    (cdl("public", "bad", "MERGE", DOC_FIELDS, data={"id": 1}, **_OK), 'unknown payload.OPERATION "MERGE"'),
    (cdl("public", "bad", "INSERT", DOC_FIELDS, data={"id": 1}, **_OK).replace('"OPERATION"', '"OP"'),
     "no payload.OPERATION"),
    (cdl("public", "", "INSERT", DOC_FIELDS, data={"id": 1}, **_OK), "payload.TABLE_NAME is missing or empty"),
    (cdl("public", "bad", "INSERT", DOC_FIELDS, data={"id": 1}, **_OK).replace('"data": {"id": 1}', '"data": [1]'),
     "payload.data is not an object of column values"),
    (cdl("public", "bad", "INSERT", DOC_FIELDS, **_OK), "INSERT without payload.data"),
    (cdl("public", "bad", "DELETE", DOC_FIELDS, key_fields=["id"], properties=[("lsn", 1)]),
     "DELETE without payload.before or payload.unique"),
    (cdl("public", "bad", "UPDATE", DOC_FIELDS, data={"title": "x"}, **_OK),
     "the row lacks primary key column(s) id (payload.unique), so the row it changes cannot be identified"),
]


# ---------------------------------------------------------------------------- Shareplex messages


def sp(op: str, table: str | None, rowid: str | None, scn: int | None, trans: str, seq: int = 1,
       data: Row | None = None, key: Row | None = None, time: str = "2024-05-24T15:58:48") -> str:
    meta: Row = {"time": time, "userid": 84, "op": op, "scn": None if scn is None else str(scn), "rowid": rowid,
                 "trans": trans, "seq": seq, "size": 1, "table": table, "idx": f"{seq}/1",
                 "posttime": "2024-05-24T15:58:50"}
    message: Row = {"meta": {k: v for k, v in meta.items() if v is not None}}
    if data is not None:
        message["data"] = data
    if key is not None:
        message["key"] = key
    return json.dumps(message, ensure_ascii=False)


R1, R2, R3, R4 = (f"AAAR{n}AAAAAAAAAAAAA" for n in range(1, 5))
L1, L2 = "AAALOG1AAAAAAAAAAA", "AAALOG2AAAAAAAAAAA"
ACC, LOG = "APP.ACCOUNTS", "APP.LOG"
# (partition, message): per partition in offset order. R1's updates on CITY are placed so
# that Kafka order (partition 0 before 1) would end with "Rome"; SCN order ends with "Bergen".
SP_HAND_MESSAGES: list[tuple[int, str]] = [
    (0, sp("ins", ACC, R1, 100, "1.1.1", data={"ID": "1", "NAME": "ann", "CITY": "Oslo", "BAL": "10.50"})),
    (0, sp("upd", ACC, R1, 200, "1.2.2", data={"NAME": "anne"}, key={"ID": "1", "NAME": "ann"})),
    (0, sp("upd", ACC, R1, 400, "1.2.4", data={"CITY": "Bergen"}, key={"ID": "1", "CITY": "Rome"})),
    (1, sp("upd", ACC, R1, 300, "1.2.3", data={"CITY": "Rome"}, key={"ID": "1", "CITY": "Oslo"})),
    (1, sp("ins", ACC, R2, 110, "2.1.1", data={"ID": "2", "NAME": "bob", "CITY": None, "BAL": "-0.001"})),
    (1, sp("upd", ACC, R2, 210, "2.1.2", data={"BAL": "3"}, key={"ID": "2", "BAL": "-0.001"})),
    (1, sp("del", ACC, R2, 310, "2.1.3", data={"ID": "2", "NAME": "bob", "CITY": None, "BAL": "3"})),
    (0, sp("INSERT", ACC, R3, 120, "2.2.1", data={"ID": "3", "NAME": "华为云 🚀", "CITY": None, "BAL": "1.0E-5"})),
    (0, sp("ins", LOG, L1, 130, "4.1.1", data={"MSG": "before truncate"})),
    (0, sp("TRUNCATE", LOG, None, 500, "4.1.2")),
    (0, sp("ins", LOG, L2, 600, "4.1.3", data={"MSG": "after truncate"})),
    (1, sp("DROP COLUMN", ACC, None, 700, "5.1.1", data={"OLD_COL": None})),
    (0, sp("ins", ACC, R4, 140, "3.3.1", data={"ID": "4", "NAME": "dan", "CITY": "Lima", "BAL": "1"})),
    (0, sp("UPDATE BEFORE", ACC, R4, 800, "3.3.3", key={"ID": "4", "CITY": "Lima"})),
    (1, sp("UPDATE AFTER", ACC, R4, 800, "3.3.3", data={"CITY": "Quito"}, key={"ID": "4"})),
]

SP_BAD_MESSAGES = [
    ("null", "value is a JSON scalar, not an object"),
    ('{"data": {}}', 'no "meta" object'),
    ('{"meta": {"table": "A.B"}}', "no meta.op"),
    (sp("merge", "A.B", "X", 1, "1.1.1", data={}), 'unknown meta.op "merge"'),
    (sp("ins", "A.B", None, 1, "1.1.1", data={"C": "1"}),
     "meta.rowid is missing: Shareplex Json names no key, the ROWID identifies the row"),
    (sp("ins", "A.B", "X", 1, "1.1.1", data={"C": "1"}).replace('"scn": "1"', '"scn": "12a"'),
     'meta.scn "12a" is not a number'),
    (json.dumps({"meta": {"op": "ins", "table": "A.B", "rowid": "X", "scn": "1", "trans": "1.1.1"}, "data": "x"}),
     '"data" is not an object of column values'),
    (sp("ins", "A.B", "X", 1, "1.1.1"), 'ins message without "data"'),
    (sp("ins", "", "X", 1, "1.1.1", data={"C": "1"}), "meta.table is missing or empty"),
]

# The document's update and delete with the meta fields it elides ("...") filled in.
SP_DOC_COMPLETED_MESSAGES = [
    sp("upd", "CL_BIZ1.MIO_LOG", "AAATGpAAIAAItcIAAB", 14589063118800, "7.1.411500", time="2017-06-16T15:38:13",
       data={"CNTR_NO": "1171201606"},
       key={"MIO_LOG_ID": "32537893", "PLNMIO_REC_ID": "31557806", "POL_CODE": None, "CNTR_TYPE": None,
            "CNTR_NO": "1171201606syui26"}),
    sp("del", "CL_BIZ1.MIO_LOG", "AAATGpAAIAAItcIAAC", 14589063118900, "7.2.411501", time="2017-06-16T15:51:35",
       data={"MIO_LOG_ID": "32539739", "PLNMIO_REC_ID": "31557806", "POL_CODE": None, "CNTR_TYPE": None,
             "CG_NO": None}),
]


# ---------------------------------------------------------------------------- helpers


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def key(*values: str) -> str:
    return json.dumps(list(values), ensure_ascii=False, separators=(",", ":"))


def without_truncates(stream: synth.Stream) -> synth.Stream:
    """CDL has no TRUNCATE operation: the stream as CDL can carry it."""
    return synth.Stream(stream.db, [c for c in stream.changes if c.op != "TRUNCATE"])


# the changes decoded from one message each, and the updates paired from two halves
CHANGE_COLUMNS = ", ".join([
    "topic", "vendor_format", "format_source", "kafka_partition", "kafka_offset", "op", "vendor_op", "source_db",
    "source_schema", "source_table", "table_id", "pk_columns", "row_key", "before_row_key", "before", "after",
    "before_is_partial", "after_is_partial", "tx_id", "event_ts", "capture_ts", "sort_key",
])


def changes(lake: Lake, topic: str) -> list[Row]:
    return lake.rows(
        f"""select vendor_format, format_source, kafka_partition, kafka_offset, op, vendor_op, source_db,
                  source_schema, source_table, table_id, pk_columns, row_key, before_row_key, before, after,
                  before_is_partial, after_is_partial, tx_id,
                  date_format(event_ts, "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'") as event_ts,
                  date_format(capture_ts, "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'") as capture_ts,
                  transform(sort_key, k -> cast(k as string)) as sort_key
           from (select {CHANGE_COLUMNS} from silver.int_cdc__decoded where record_kind = 'change'
                 union all
                 select {CHANGE_COLUMNS} from silver.int_cdc__update_pairs)
           where topic = :topic
           order by kafka_partition, kafka_offset""",
        topic=topic,
    )


def rejects(lake: Lake, topic: str) -> list[tuple[int, str, str]]:
    return [(r["kafka_offset"], r["reject_stage"], r["reject_reason"]) for r in lake.rows(
        "select kafka_offset, reject_stage, reject_reason from silver.cdc_rejects where topic = :topic "
        "order by kafka_offset", topic=topic)]


def gold_rows(lake: Lake, table_id: str) -> list[Image]:
    rows = lake.rows("select row from gold.cdc_current_rows where table_id = :t", t=table_id)
    return sorted((r["row"] for r in rows), key=lambda r: json.dumps(r, sort_keys=True))


# ---------------------------------------------------------------------------- the lake


@cache
def generated_streams() -> dict[str, synth.Stream]:
    return {"cdl_json": without_truncates(synth.generate("gen_cdl", n_changes=300, seed=3)),
            "shareplex_json": synth.generate("gen_sp", n_changes=300, seed=4)}


@pytest.fixture(scope="module")
def streams() -> dict[str, synth.Stream]:
    return generated_streams()


def land_examples(lake: Lake, tmp: Path) -> Iterator[None]:
    """One batch (tests/examples/conftest.py); the lake is the result."""
    vectors, streams = VECTORS, generated_streams()
    # the vendor vectors land as plain text without a format: detected by shape
    lake.land([vectors / "huawei_cdl" / "cdl_json_v1_insert.ndjson"], topic=CDL_DOC)
    lake.land([vectors / "dts_shareplex_json" / "vendor_doc.ndjson"], topic=SP_DOC)
    lake.land([write_lines(tmp / "sp_doc_completed.ndjson", SP_DOC_COMPLETED_MESSAGES)], topic=SP_DOC_COMPLETED)
    lake.land([write_lines(tmp / "cdl_hand.ndjson", CDL_HAND_MESSAGES)], topic=CDL_HAND)
    lake.land([write_lines(tmp / "cdl_bad.ndjson", [m for m, _ in CDL_BAD_MESSAGES])], topic=CDL_BAD,
              declared_format="cdl_json")
    lake.land([write_lines(tmp / "sp_bad.ndjson", [m for m, _ in SP_BAD_MESSAGES])], topic=SP_BAD,
              declared_format="shareplex_json")
    offsets = [0, 0]
    hand: list[synth.Record] = []
    for partition, message in SP_HAND_MESSAGES:
        hand.append(synth.Record(SP_HAND, partition, offsets[partition], 1716566328000, message))
        offsets[partition] += 1
    synth.write_records(tmp / "sp_hand.jsonl", hand)
    lake.land([tmp / "sp_hand.jsonl"], declared_format="shareplex_json")
    synth.write_records(tmp / "gen_cdl.jsonl", cdl_json.render(streams["cdl_json"], GEN_CDL))
    synth.write_records(tmp / "gen_sp.jsonl", shareplex_json.render(streams["shareplex_json"], GEN_SP))
    lake.land([tmp / "gen_cdl.jsonl"], declared_format="cdl_json")
    lake.land([tmp / "gen_sp.jsonl"], declared_format="shareplex_json")
    yield
    return lake


# ---------------------------------------------------------------------------- cdl_json


def test_cdl_vendor_example_insert(built):
    """The document's CDL JSON 1.0 INSERT: detected by shape; SEG_OWNER/TABLE_NAME name the
    table (no database); `unique` gives the key; lsn then txId order it; TIMESTAMP
    1707047996013 ms is 2024-02-04T11:59:56.013Z; JSON nulls stay null values."""
    assert changes(built, CDL_DOC) == [{
        "vendor_format": "cdl_json", "format_source": "shape", "kafka_partition": 0, "kafka_offset": 0,
        "op": "INSERT", "vendor_op": "INSERT", "source_db": None, "source_schema": "public",
        "source_table": "ct_pg2hudi", "table_id": "public.ct_pg2hudi", "pk_columns": ["id"], "row_key": key("34"),
        "before_row_key": None, "before": None,
        "after": {"count1": "13", "id": "34", "time1": None, "decimalNum": None},
        "before_is_partial": False, "after_is_partial": False, "tx_id": "57227595",
        "event_ts": "2024-02-04T11:59:56.013Z", "capture_ts": None, "sort_key": ["163955221008", "57227595"],
    }]
    (types,) = built.rows("select column_types from silver.cdc_changes where topic = :t", t=CDL_DOC)
    assert types["column_types"] == {"count1": "int64", "id": "int32", "time1": f"int64 {TS}",
                                     "decimalNum": f"string {CDL_DECIMAL}"}


def test_cdl_connect_types_to_canonical_text(built):
    """Values typed by the schema section: Timestamp ms -> ISO-8601 UTC, Date days ->
    yyyy-MM-dd, Time ms -> HH:mm:ss[.fff], Connect Decimal bytes (0x01E240 scale 2, 0xFB
    scale 3) -> 1234.56 / -0.005 and a 27-byte DECIMAL(65,30) exactly, CDL Decimal text
    exactly, float 1.2510357E7 -> 12510357, bytes base64 as given, boolean, unicode, nested
    struct as compact JSON, int64 max."""
    (row,) = [r for r in changes(built, CDL_HAND) if r["table_id"] == "public.typed"]
    assert row["after"] == TYPED_AFTER
    assert (row["sort_key"], row["tx_id"], row["row_key"]) == (["163955221100", "57227600"], "57227600", key("1"))


def test_cdl_lob_update_delete_by_key_and_key_order(built):
    """An UPDATE that omits the LOB column `body` has a partial after image and gold keeps
    the stored body; a DELETE without `before` takes its before image from `unique`
    (partial) and removes the row; a composite key keeps the order of the `unique` struct."""
    rows = {(r["table_id"], r["kafka_offset"]): r for r in changes(built, CDL_HAND)}
    update = rows[("public.docs", 2)]
    assert (update["op"], update["before"], update["after"], update["after_is_partial"]) == (
        "UPDATE", {"id": "1", "title": "a", "body": "long text"}, {"id": "1", "title": "b"}, True)
    delete = rows[("public.docs", 4)]
    assert (delete["op"], delete["before"], delete["before_is_partial"], delete["row_key"]) == (
        "DELETE", {"id": "2"}, True, key("2"))
    assert gold_rows(built, "public.docs") == [{"id": "1", "title": "b", "body": "long text"}]
    line = rows[("public.lines", 5)]
    assert (line["pk_columns"], line["row_key"]) == (["z_order", "a_line"], key("10", "2"))


def test_cdl_oracle_scn_and_timestamp_ordering(built):
    """An Oracle source's `scn` property orders its changes (no txId: no tx_id); without
    transaction properties TIMESTAMP is the sort key."""
    emp = [r for r in changes(built, CDL_HAND) if r["table_id"] == "scott.emp"]
    assert [(r["sort_key"], r["tx_id"], r["row_key"]) for r in emp] == [
        (["14589063118712"], None, key("7369")), (["1707047996999"], None, key("7499"))]


def test_cdl_heartbeat_table_rows_are_markers(built):
    """Rows of CDC_CDL.CDC_HEARTBEAT are HEARTBEAT markers (not changes); the other
    messages carry a HEARTBEAT_IDENTIFIER too and stay changes."""
    markers = built.rows(
        "select topic, marker_kind, table_id, detail from silver.cdc_heartbeats where topic = :t", t=CDL_HAND)
    assert markers == [{"topic": CDL_HAND, "marker_kind": "HEARTBEAT", "table_id": "cdc_cdl.cdc_heartbeat",
                        "detail": '279fb050-0143-45c1-b184-50bc48c2461c '
                                  '{"CDL_JOB_ID":"7","CDL_LAST_HEARTBEAT":"2024-02-04T11:59:56.013Z"}'}]
    assert len(changes(built, CDL_HAND)) == len(CDL_HAND_MESSAGES) - 1


def test_cdl_malformed_messages_are_rejects(built):
    assert rejects(built, CDL_BAD) == [(i, "decode", reason) for i, (_, reason) in enumerate(CDL_BAD_MESSAGES)]


def test_cdl_generated_stream_folds_like_python(built, streams):
    """A generated stream (its TRUNCATE dropped: CDL has no such operation) in CDL JSON,
    with LOB-partial updates and heartbeat rows, folds to synth.fold exactly."""
    expected = {(t, k): v for (t, k), v in synth.fold(streams["cdl_json"]).items()}
    actual = {(r["table_id"], r["row_key"]): (r["row"], r["row_count"]) for r in built.rows(
        "select table_id, row_key, row, row_count from gold.cdc_current_rows where table_id like 'gen_cdl.%'")}
    assert sorted(set(expected) ^ set(actual))[:5] == []
    assert [(k, expected[k], actual[k]) for k in expected if expected[k] != actual[k]][:3] == []
    (n,) = built.rows("select count(*) as n from silver.cdc_heartbeats where topic = :t", t=GEN_CDL)
    assert n["n"] > 0
    assert rejects(built, GEN_CDL) == []


# ---------------------------------------------------------------------------- shareplex_json


def test_shareplex_vendor_examples_as_given(built):
    """The document's three examples: the INSERT (full meta) decodes, ROWID as key; its
    UPDATE elides meta (no rowid) and its DELETE has no meta.table: rejects with reasons."""
    assert changes(built, SP_DOC) == [{
        "vendor_format": "shareplex_json", "format_source": "shape", "kafka_partition": 0, "kafka_offset": 0,
        "op": "INSERT", "vendor_op": "ins", "source_db": None, "source_schema": "CL_BIZ1",
        "source_table": "MIO_LOG", "table_id": "cl_biz1.mio_log", "pk_columns": ["ROWID"],
        "row_key": key("AAATGpAAIAAItcIAAA"), "before_row_key": None, "before": None,
        "after": {"MIO_LOG_ID": "32539737", "ROWID": "AAATGpAAIAAItcIAAA"},
        "before_is_partial": False, "after_is_partial": False, "tx_id": "7.0.411499",
        "event_ts": "2017-06-16T14:24:34.000Z", "capture_ts": "2017-06-16T14:33:52.000Z",
        "sort_key": ["14589063118712", "7", "0", "411499", "1"],
    }]
    assert rejects(built, SP_DOC) == [
        (1, "decode", "meta.rowid is missing: Shareplex Json names no key, the ROWID identifies the row"),
        (2, "decode", "meta.table is missing or empty")]


def test_shareplex_vendor_update_and_delete_completed(built):
    """The document's UPDATE and DELETE with their elided meta filled in: before = key,
    after = key overlaid with data (CNTR_NO new value), both partial; DELETE before = data."""
    upd, dele = changes(built, SP_DOC_COMPLETED)
    before = {"MIO_LOG_ID": "32537893", "PLNMIO_REC_ID": "31557806", "POL_CODE": None, "CNTR_TYPE": None,
              "CNTR_NO": "1171201606syui26", "ROWID": "AAATGpAAIAAItcIAAB"}
    assert (upd["op"], upd["before"], upd["after"], upd["before_is_partial"], upd["after_is_partial"]) == (
        "UPDATE", before, {**before, "CNTR_NO": "1171201606"}, True, True)
    assert (upd["row_key"], upd["before_row_key"], upd["event_ts"]) == (
        key("AAATGpAAIAAItcIAAB"), key("AAATGpAAIAAItcIAAB"), "2017-06-16T15:38:13.000Z")
    assert (dele["op"], dele["after"], dele["before"]) == ("DELETE", None, {
        "MIO_LOG_ID": "32539739", "PLNMIO_REC_ID": "31557806", "POL_CODE": None, "CNTR_TYPE": None, "CG_NO": None,
        "ROWID": "AAATGpAAIAAItcIAAC"})


def test_shareplex_partial_updates_merge_in_scn_order(built):
    """R1 is updated on NAME, then CITY twice: gold keeps both columns' changes, and the
    CITY changes apply in SCN order (Bergen, SCN 400) although Kafka order would end with
    Rome. R2 is updated, then deleted: gone. R3 (op spelled INSERT) keeps its values as
    given (1.0E-5 is text: no column types are sent). R4's UPDATE BEFORE/AFTER halves pair
    into one UPDATE."""
    assert gold_rows(built, "app.accounts") == sorted([
        {"ID": "1", "NAME": "anne", "CITY": "Bergen", "BAL": "10.50", "ROWID": R1},
        {"ID": "3", "NAME": "华为云 🚀", "CITY": None, "BAL": "1.0E-5", "ROWID": R3},
        {"ID": "4", "NAME": "dan", "CITY": "Quito", "BAL": "1", "ROWID": R4},
    ], key=lambda r: json.dumps(r, sort_keys=True))
    (pair,) = [r for r in changes(built, SP_HAND) if r["vendor_op"] == "UPDATE BEFORE+UPDATE AFTER"]
    assert (pair["op"], pair["before"], pair["after"], pair["tx_id"]) == (
        "UPDATE", {"ID": "4", "CITY": "Lima", "ROWID": R4}, {"ID": "4", "CITY": "Quito", "ROWID": R4}, "3.3.3")


def test_shareplex_truncate_and_drop_column(built):
    """TRUNCATE empties APP.LOG up to its SCN (the later insert stays); DROP COLUMN is a
    DDL event whose statement names the column the message names."""
    assert gold_rows(built, "app.log") == [{"MSG": "after truncate", "ROWID": L2}]
    (ddl,) = built.rows(
        "select vendor_op, table_id, ddl_text, ddl_dialect, ddl_action from silver.cdc_ddl_events where topic = :t",
        t=SP_HAND)
    assert ddl == {"vendor_op": "DROP COLUMN", "table_id": "app.accounts",
                   "ddl_text": 'ALTER TABLE "APP"."ACCOUNTS" DROP COLUMN "OLD_COL"', "ddl_dialect": "oracle",
                   "ddl_action": "ALTER"}
    assert rejects(built, SP_HAND) == []


def test_shareplex_malformed_messages_are_rejects(built):
    assert rejects(built, SP_BAD) == [(i, "decode", reason) for i, (_, reason) in enumerate(SP_BAD_MESSAGES)]


def test_shareplex_generated_stream_folds_like_python(built, streams):
    """A generated stream in Shareplex Json folds to synth.fold, compared per table as the
    multiset of rows: gold is keyed by ROWID (a key change is an update of the same ROWID,
    each copy of an unkeyed row has its own ROWID), so row_key and row_count differ from
    the fold's by construction while the table contents must be equal."""
    fold = synth.fold(streams["shareplex_json"])
    expected = state_as_multisets(fold)
    actual = rows_as_multisets([(r["table_id"], r["row"], r["row_count"]) for r in built.rows(
        "select table_id, row, row_count from gold.cdc_current_rows where table_id like 'gen_sp.%'")], drop="ROWID")
    assert set(actual) == set(expected)
    for table_id in expected:
        assert actual[table_id] == expected[table_id], table_id
    assert rejects(built, GEN_SP) == []


def test_every_message_is_accounted_for(built):
    """Nothing is lost: per topic, bronze records = changes + markers + DDL + rejects + halves."""
    counts = built.rows(
        """select topic, count(*) as n from bronze.kafka_messages
           where array_contains(:topics, topic) group by topic order by topic""", topics=TOPICS)
    placed = {r["topic"]: r["n"] for r in built.rows(
        """select topic, count(distinct message_id) as n from silver.int_cdc__decoded
           where array_contains(:topics, topic) group by topic""", topics=TOPICS)}
    assert {r["topic"]: r["n"] for r in counts} == placed
