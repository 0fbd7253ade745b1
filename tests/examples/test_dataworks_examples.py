"""DataWorks "sync whole database to Kafka" JSON (dataworks_json), also as the payload of
DataHub Blob topics: every example of the vendor documents and of Paimon's aliyun-json test
events decodes to the silver rows it describes; update halves (UPDATE_BEFOR + UPDATE_AFTER)
become one UPDATE, also across landing batches; DDL carries its decoded ddlMeta; malformed
messages are rejects with reasons; a rendered stream folds to synth.fold.

Sources: vendor-docs alibaba-dataworks-kafka-json.zh-hant.txt ("附錄:消息格式") and
alibaba-datahub-tuple-blob.zh.txt (Blob part), tests/vectors/dataworks_kafka_json/ and
tests/vectors/datahub/ (see SOURCES.md there). Messages the documents describe without an
example (Oracle scn/rowid, PostgreSQL schemaName, transaction markers, the other DDL ops,
TRUNCATE) are built by hand below from the documents' field descriptions.

The session time zone is UTC; DataWorks DATE values are epoch milliseconds (instants), so
they become ISO-8601 UTC text with `Z`, and times here are compared as UTC.

Two builds: everything lands before the first; the second build brings the UPDATE_AFTER
halves whose UPDATE_BEFOR waited in the first, and the second part of the rendered stream.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import synth
from renderers import dataworks_json as renderer
from udfs.ddlmeta import decode_ddlmeta

if TYPE_CHECKING:
    from cdclake.lake import Lake

Row = dict[str, Any]

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
DDLMETA_B64 = (VECTORS / "dataworks_kafka_json" / "ddlMeta_alter_add_column.b64").read_text().strip()
DDLMETA_SUMMARY = json.loads(
    (VECTORS / "dataworks_kafka_json" / "ddlMeta_alter_add_column.decoded.txt").read_text(encoding="utf-8")
    .split("SUMMARY ", 1)[1]
)

DOC = "ex.dataworks.vendor-doc"
DOC_ONE_MESSAGE = "ex.dataworks.vendor-doc-one-message"
PAIMON = "ex.dataworks.paimon"
BLOB_TEXT = "ex.datahub.blob-text"
BLOB_B64 = "ex.datahub.blob-base64"
HAND = "ex.dataworks.hand-built"
BAD = "ex.dataworks.malformed"
SPLIT = "ex.dataworks.split"
SYNTH = "ex.dataworks.synth"
SYNTH_DB = "dw_synth"


def msg(op: str, seq: str | None, table: str | None = "products", before: Row | None = None,
        after: Row | None = None, ddl: Row | None = None, source: Row | None = None, columns: Row | None = None,
        pk: list[str] | None = None, event_ms: int = 1700000000000, **payload: Any) -> str:
    """One hand-built DataWorks message (keys as the Kafka document writes them)."""
    src = source or {"dbType": "MySQL", "dbName": "dw_shop", "tableName": table}
    return json.dumps({
        "schema": {"dataColumn": [{"name": n, "type": t} for n, t in (columns or {}).items()] or None,
                   "primaryKey": pk, "source": src},
        "payload": {"before": None if before is None else {"dataColumn": before},
                    "after": None if after is None else {"dataColumn": after},
                    "sequenceId": seq, "op": op, **payload,
                    "timestamp": {"eventTime": event_ms, "systemTime": event_ms + 500, "checkpointTime": event_ms},
                    "ddl": ddl},
        "version": "1.0.0",
    }, ensure_ascii=False)


ORACLE = {"dbType": "Oracle", "dbVersion": "19c", "dbName": "ORCL", "schemaName": "SHOP", "tableName": "PRODUCTS"}
ORACLE_TYPES = {"ID": "LONG", "NAME": "STRING", "PRICE": "DOUBLE", "ACTIVE": "BOOLEAN", "UPDATED": "DATE",
                "PHOTO": "BYTES", "RATIO": "DOUBLE", "NOTE": "STRING", "rowid": "STRING"}
# raw JSON for the numbers whose text matters (json.dumps would go through float)
ORACLE_INSERT = msg(
    "INSERT", "1620457642589000010", source=ORACLE, columns=ORACLE_TYPES, pk=["ID"], scn="2370284",
    event_ms=1590315269000,
    after={"ID": 123456789012345678, "NAME": "华为云 naïve \"q\" 🚀", "PRICE": "@PRICE@", "ACTIVE": True,
           "UPDATED": 1590315269123, "PHOTO": "5rWL6K+VdGV4dDEyMw==", "RATIO": "@RATIO@", "NOTE": None,
           "rowid": "AAIUMPAAFAACxExAAE"},
).replace('"@PRICE@"', "123456789876543212345678987654321.11").replace('"@RATIO@"', "1.5E-7")
ORACLE_UPDATE = msg(
    "UPDATE_AFTER", "1620457642589000011", source=ORACLE, columns=ORACLE_TYPES, pk=["ID"], scn="2370290",
    event_ms=1590315270000,
    before={"ID": 123456789012345678, "NAME": "华为云 naïve \"q\" 🚀", "PRICE": "7.50", "ACTIVE": True,
            "UPDATED": 1590315269123, "PHOTO": "5rWL6K+VdGV4dDEyMw==", "RATIO": 0.25, "NOTE": None,
            "rowid": "AAIUMPAAFAACxExAAE"},
    after={"ID": 123456789012345678, "NAME": "x", "PRICE": "7.50", "ACTIVE": False, "UPDATED": -86400000,
           "PHOTO": "", "RATIO": 0.25, "NOTE": "ok", "rowid": "AAIUMPAAFAACxExAAE"},
)
POSTGRES = {"dbType": "PostgreSQL", "dbName": "pgdb", "schemaName": "public", "tableName": "accounts"}
JAVA_STRING = base64.b64encode(bytes.fromhex("aced0005740003616263")).decode()
TRUNCATED_DDLMETA = base64.b64encode(base64.b64decode(DDLMETA_B64)[:600]).decode()

HAND_MESSAGES = [
    ORACLE_INSERT,                                                                                       # 0
    ORACLE_UPDATE,                                                                                       # 1
    msg("INSERT", "5", source=POSTGRES, columns={"id": "LONG", "ok": "BOOLEAN"}, pk=["id"],              # 2
        after={"id": 1, "ok": False}),
    msg("TRANSACTION_BEGIN", "6", table=None, source={}),                                                # 3
    msg("TRANSACTION_END", "7", table=None, source={}),                                                  # 4
    msg("GTID", "8", table=None, source={}),                                                             # 5
    msg("XACOMMIT", "9", table=None, source={}),                                                         # 6
    msg("XAROLLBACK", "10", table=None, source={}),                                                      # 7
    msg("CREATE", "11", table="t2", ddl={"text": "create table t2 (id bigint primary key, v text)", "ddlMeta": None}),
    msg("ERASE", "12", table="t2", ddl={"text": "drop table t2"}),                                       # 9
    msg("RENAME", "13", table="t3", ddl={"text": "rename table t3 to t4"}),                              # 10
    msg("CINDEX", "14", table="t4", ddl={"text": "create index i1 on t4 (v)"}),                          # 11
    msg("DINDEX", "15", table="t4", ddl={"text": "drop index i1 on t4"}),                                # 12
    msg("QUERY", "16", table="t4", ddl={"text": "grant select on t4 to bob"}),                           # 13
    msg("ALTER", "17", source=POSTGRES, ddl={"text": "alter table public.accounts add column note text"}),
    msg("INSERT", "18", table="events", columns={"kind": "STRING"}, after={"kind": "a"}),              # 15
    msg("TRUNCATE", "19", table="events", ddl={"text": "truncate table events"}),                        # 16
    msg("ALTER", "20", table="t4", ddl={"text": "alter table t4 add c int", "ddlMeta": "bm90IGphdmE="}),  # 17
    msg("ALTER", "21", table="t4", ddl={"text": "alter table t4 add d int", "ddlMeta": JAVA_STRING}),    # 18
    msg("ALTER", "22", table="t4", ddl={"text": "alter table t4 add e int", "ddlMeta": TRUNCATED_DDLMETA}),
]

BAD_VALUES = [
    "{not json",                                                                                          # 0
    '[{"payload": {"op": "INSERT"}}]',                                                                    # 1
    json.dumps({"schema": {"dataColumn": []}, "payload": {"sequenceId": "1"}}),                         # 2
    msg("UPSERT", "3", after={"id": 1}),                                                                  # 3
    msg("INSERT", "4", pk=["id"], columns={"id": "LONG"}),                                                # 4
    msg("UPDATE_BEFOR", None, pk=["id"], columns={"id": "LONG"}, before={"id": 1}),                      # 5
    msg("INSERT", "6", pk=["id"], columns={"id": "LONG", "v": "STRING"}, after={"v": "x"}),              # 6
    msg("INSERT", "abc", pk=["id"], columns={"id": "LONG"}, after={"id": 1}),                            # 7
    msg("DELETE", "8", table=None, columns={"id": "LONG"}, before={"id": 1}),                            # 8
    msg("INSERT", "9", columns={"id": "LONG"}, after={"id": 1}).replace('{"dataColumn": {"id": 1}}', '[1]'),
    msg("INSERT", "10", columns={"id": "LONG"}, after={"id": 1}).replace('"name": "id", "type": "LONG"}',
                                                                        '"name": "id", "type": "LONG"}, '
                                                                        '{"name": "id", "type": "STRING"}'),
]
BAD_REASONS = [
    "value is not valid JSON",
    "value is a JSON array, not an object",
    'no "payload.op" field',
    'unknown "payload.op" value "UPSERT"',
    'INSERT without "payload.after"',
    'UPDATE_BEFOR without "payload.sequenceId", which pairs it with the other half of its update',
    "an image lacks primary key column(s) id (schema.primaryKey), so the row it changes cannot be identified",
    '"payload.sequenceId" is not an integer: "abc"',
    '"schema.source.tableName" is missing or empty',
    '"payload.after.dataColumn" is missing or not an object',
    '"schema.dataColumn" names a column twice',
    "value is not UTF-8 text",
]

SPLIT_COLUMNS = {"id": "LONG", "v": "STRING"}
SPLIT_FIRST = [
    msg("INSERT", "100", table="split", columns=SPLIT_COLUMNS, pk=["id"], after={"id": 1, "v": "old"}),
    msg("UPDATE_BEFOR", "101", table="split", columns=SPLIT_COLUMNS, pk=["id"], before={"id": 1, "v": "old"}),
]
SPLIT_SECOND = [
    msg("UPDATE_AFTER", "101", table="split", columns=SPLIT_COLUMNS, pk=["id"], after={"id": 1, "v": "new"}),
]


# ---------------------------------------------------------------------------- helpers


def lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_lines(path: Path, rows: list[str]) -> Path:
    path.write_text("".join(r + "\n" for r in rows), encoding="utf-8")
    return path


def envelope_lines(topic: str, values: list[bytes]) -> list[str]:
    """Our JSON-lines landing format with binary values (`value_base64`)."""
    return [json.dumps({"topic": topic, "partition": 0, "offset": i, "timestamp": 1605339932000 + i, "key": None,
                        "value_base64": base64.b64encode(v).decode()}) for i, v in enumerate(values)]


def iso_sql(column: str) -> str:
    return f"""date_format({column}, "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'") as {column}"""


def changes(lake: Lake, topic: str) -> list[Row]:
    return lake.rows(
        f"""select kafka_offset, op, vendor_op, source_db, source_schema, source_table, table_id, pk_columns,
                   row_key, before_row_key, before, after, column_types, pair_key, tx_id, truncate_statement,
                   {iso_sql("event_ts")}, {iso_sql("capture_ts")},
                   transform(sort_key, k -> cast(k as string)) as sort_key
            from silver.cdc_changes where topic = :topic order by kafka_offset""",
        topic=topic,
    )


def gold_rows(lake: Lake, table_id: str) -> list[Row]:
    return lake.rows("select row, row_count from gold.cdc_current_rows where table_id = :t order by row_key",
                     t=table_id)


def rejects(lake: Lake, topic: str) -> list[Row]:
    return lake.rows("""select kafka_offset, reject_stage, reject_reason, vendor_format from silver.cdc_rejects
                        where topic = :topic order by kafka_offset""", topic=topic)


# ---------------------------------------------------------------------------- the lake


@dataclass(frozen=True)
class Built:
    lake: Lake
    first: dict[str, Any]  # what the first build left (waiting halves, gold before the partner)
    stream: synth.Stream


def land_examples(lake: Lake, tmp: Path) -> Iterator[None]:
    """Two batches (tests/examples/conftest.py)."""
    doc = lines(VECTORS / "dataworks_kafka_json" / "vendor_doc_kafka.ndjson")
    blob = lines(VECTORS / "datahub" / "blob_json_vendor_doc.ndjson")
    # the two update modes of the document describe the same update: the one-message form
    # lands apart (its own database), after the same INSERT, so each folds on its own
    one_message = [m.replace('"dbName":"pkset_test"', '"dbName":"pkset_test_one_message"') for m in (doc[1], doc[4])]
    blob_b64 = [m.replace('"dbName":"yunshi_db"', '"dbName":"yunshi_db_b64"').encode("utf-8") for m in blob]
    bad = envelope_lines(BAD, [v.encode("utf-8") for v in BAD_VALUES] + [b"\xff\xfe{\x80"])
    for i, line in enumerate(bad[:-1]):  # all but the non-UTF-8 one as text values
        record = json.loads(line)
        record["value"] = base64.b64decode(record.pop("value_base64")).decode("utf-8")
        bad[i] = json.dumps(record, ensure_ascii=False)

    stream = synth.generate(SYNTH_DB, n_changes=300)
    records = renderer.render(stream, SYNTH)
    # cut between an UPDATE_BEFOR and its UPDATE_AFTER (by the order of the stream)
    cut = next(i for i, r in enumerate(records) if '"op": "UPDATE_BEFOR"' in r.value and i > len(records) // 2) + 1
    synth.write_records(tmp / "synth-1.jsonl", records[:cut])
    synth.write_records(tmp / "synth-2.jsonl", records[cut:])

    lake.land([write_lines(tmp / "doc.ndjson", [doc[i] for i in (0, 1, 2, 3, 5)])], topic=DOC)
    lake.land([write_lines(tmp / "one.ndjson", one_message)], topic=DOC_ONE_MESSAGE)
    lake.land([VECTORS / "dataworks_kafka_json" / "paimon_aliyun_event.ndjson"], topic=PAIMON)
    lake.land([VECTORS / "datahub" / "blob_json_vendor_doc.ndjson"], topic=BLOB_TEXT)
    lake.land([write_lines(tmp / "blob-b64.jsonl", envelope_lines(BLOB_B64, blob_b64))])
    lake.land([write_lines(tmp / "hand.ndjson", HAND_MESSAGES)], topic=HAND, declared_format="dataworks_json")
    lake.land([write_lines(tmp / "bad.jsonl", bad)], declared_format="dataworks_json")
    lake.land([write_lines(tmp / "split-1.ndjson", SPLIT_FIRST)], topic=SPLIT)
    lake.land([tmp / "synth-1.jsonl"])
    yield

    first = {
        "halves": lake.rows("""select topic, half, pair_key, is_paired, image from silver.cdc_update_halves
                               where topic in (:split, :synth) and not is_paired order by topic""",
                            split=SPLIT, synth=SYNTH),
        "split_gold": gold_rows(lake, "dw_shop.split"),
        "split_changes": changes(lake, SPLIT),
    }
    lake.land([write_lines(tmp / "split-2.ndjson", SPLIT_SECOND)], topic=SPLIT)
    lake.land([tmp / "synth-2.jsonl"])
    yield
    return Built(lake, first, stream)


# ---------------------------------------------------------------------------- the ddlMeta UDF (pure Python)


def test_ddlmeta_udf_decodes_the_vendor_example():
    """The DataHub document's ALTER ddlMeta: the summary javaobj recovers (decoded.txt)."""
    assert json.loads(decode_ddlmeta(DDLMETA_B64)) == {**DDLMETA_SUMMARY, "error": None}


@pytest.mark.parametrize("value, reason", [
    ("!!not base64!!", "not base64"),
    ("bm90IGphdmE=", "not a Java serialization stream (starts with 6e6f7420)"),
    (JAVA_STRING, "the serialized object is JavaString, not com.alibaba.di.plugin.center.meta.DDLMeta"),
    (TRUNCATED_DDLMETA, "unreadable Java serialization"),
    ("", "not a Java serialization stream (starts with nothing)"),
])
def test_ddlmeta_udf_gives_a_reason_for_what_it_cannot_read(value, reason):
    result = json.loads(decode_ddlmeta(value))
    assert result["error"].startswith(reason)
    assert result["statementClass"] is None and result["items"] == []


def test_ddlmeta_udf_null_is_null():
    assert decode_ddlmeta(None) is None


# ---------------------------------------------------------------------------- silver: the Kafka document


DOC_TYPES = {"name": "STRING", "job": "STRING", "sex": "STRING", "#alibaba_rds_row_id#": "LONG"}
MAN = {"name": "name11", "job": "job11", "sex": "man", "#alibaba_rds_row_id#": "15"}
WOMAN = {**MAN, "sex": "woman"}


def whole_row_key(image: dict[str, str]) -> str:
    return json.dumps({c: v for c, v in sorted(image.items()) if v is not None}, separators=(",", ":"))


def test_vendor_doc_insert_update_pair_and_delete(built):
    """The Kafka document: INSERT; UPDATE_BEFOR + UPDATE_AFTER (same sequenceId) -> ONE
    UPDATE with the before half's image and the after half's image and position; DELETE.
    Table without key (primaryKey null): `#alibaba_rds_row_id#` is a plain column and the
    row key is the whole row."""
    common = {"source_db": "pkset_test", "source_schema": None, "source_table": "pkset_test_no_pk",
              "table_id": "pkset_test.pkset_test_no_pk", "pk_columns": [], "column_types": DOC_TYPES,
              "tx_id": None, "truncate_statement": None}
    assert changes(built.lake, DOC) == [
        {**common, "kafka_offset": 1, "op": "INSERT", "vendor_op": "INSERT", "before": None, "after": MAN,
         "row_key": whole_row_key(MAN), "before_row_key": None, "pair_key": None,
         "event_ts": "2021-05-08T07:11:36.000Z", "capture_ts": "2021-05-08T07:11:36.977Z",
         "sort_key": ["1620457642589000000"]},
        {**common, "kafka_offset": 3, "op": "UPDATE", "vendor_op": "UPDATE_BEFOR+UPDATE_AFTER", "before": MAN,
         "after": WOMAN, "row_key": whole_row_key(WOMAN), "before_row_key": whole_row_key(MAN),
         "pair_key": "1620457642589000001", "event_ts": "2021-05-08T07:14:37.000Z",
         "capture_ts": "2021-05-08T07:14:37.779Z", "sort_key": ["1620457642589000001"]},
        {**common, "kafka_offset": 4, "op": "DELETE", "vendor_op": "DELETE", "before": WOMAN, "after": None,
         "row_key": whole_row_key(WOMAN), "before_row_key": None, "pair_key": None,
         "event_ts": "2021-05-08T07:17:46.000Z", "capture_ts": "2021-05-08T07:17:46.101Z",
         "sort_key": ["1620457642589000002"]},
    ]
    halves = built.lake.rows("""select kafka_offset, half, is_paired from silver.cdc_update_halves
                                where topic = :t order by kafka_offset""", t=DOC)
    assert halves == [{"kafka_offset": 2, "half": "before", "is_paired": True},
                      {"kafka_offset": 3, "half": "after", "is_paired": True}]
    assert gold_rows(built.lake, "pkset_test.pkset_test_no_pk") == []


def test_vendor_doc_heartbeat(built):
    """MHEARTBEAT (schema all null, no systemTime) -> a HEARTBEAT marker at eventTime."""
    assert built.lake.rows(
        f"""select kafka_offset, marker_kind, vendor_op, table_id, {iso_sql("event_ts")}, capture_ts,
                  transform(sort_key, k -> cast(k as string)) as sort_key
           from silver.cdc_heartbeats where topic = :t""", t=DOC,
    ) == [{"kafka_offset": 0, "marker_kind": "HEARTBEAT", "vendor_op": "MHEARTBEAT", "table_id": None,
           "event_ts": "2021-05-08T07:07:39.000Z", "capture_ts": None, "sort_key": []}]


def test_vendor_doc_one_message_update(built):
    """"One Kafka record per update": UPDATE_AFTER with both images is one UPDATE (no halves)."""
    rows = changes(built.lake, DOC_ONE_MESSAGE)
    assert [(r["op"], r["vendor_op"], r["before"], r["after"], r["pair_key"]) for r in rows] == [
        ("INSERT", "INSERT", None, MAN, None), ("UPDATE", "UPDATE_AFTER", MAN, WOMAN, None)]
    assert built.lake.rows("select count(*) as n from silver.cdc_update_halves where topic = :t",
                           t=DOC_ONE_MESSAGE) == [{"n": 0}]
    assert gold_rows(built.lake, "pkset_test_one_message.pkset_test_no_pk") == [{"row": WOMAN, "row_count": 1}]


# ---------------------------------------------------------------------------- silver: Paimon's aliyun-json events


def test_paimon_events_snapshot_decimal_text_and_date(built):
    """Paimon's captured messages: the full-load INSERT (sequenceId "-1", eventTime -1) is a
    SNAPSHOT without event time, sorting first; DOUBLE written as a JSON string keeps its
    text ("1.100000"); DATE 1731661114000 ms is 2024-11-15T08:58:34Z (UTC). Paimon maps
    UPDATE_AFTER to +U and DELETE to -D as we do; the DELETE of id 1 (never inserted here)
    leaves gold with id 2 only."""
    common = {"source_db": "bigdata_test", "source_schema": None, "source_table": "sync_test_table",
              "table_id": "bigdata_test.sync_test_table", "pk_columns": ["id"], "tx_id": None,
              "truncate_statement": None, "pair_key": None,
              "column_types": {"id": "LONG", "val": "DOUBLE", "name": "STRING", "create_time": "DATE"}}
    row2 = {"id": "2", "val": "1.100000", "name": "a", "create_time": "2024-11-15T08:58:34Z"}
    row1 = {**row2, "id": "1"}
    assert changes(built.lake, PAIMON) == [
        {**common, "kafka_offset": 0, "op": "SNAPSHOT", "vendor_op": "INSERT", "before": None, "after": row2,
         "row_key": '["2"]', "before_row_key": None, "event_ts": None, "capture_ts": "2024-11-15T09:10:20.245Z",
         "sort_key": ["-1"]},
        {**common, "kafka_offset": 1, "op": "UPDATE", "vendor_op": "UPDATE_AFTER", "before": row2,
         "after": {**row2, "val": "2.200000"}, "row_key": '["2"]', "before_row_key": '["2"]',
         "event_ts": "2024-11-15T09:14:57.000Z", "capture_ts": "2024-11-15T09:44:08.979Z",
         "sort_key": ["1731663842292000001"]},
        {**common, "kafka_offset": 2, "op": "DELETE", "vendor_op": "DELETE", "before": row1, "after": None,
         "row_key": '["1"]', "before_row_key": None, "event_ts": "2024-11-15T09:14:45.000Z",
         "capture_ts": "2024-11-15T09:44:08.953Z", "sort_key": ["1731663842292000000"]},
    ]
    assert gold_rows(built.lake, "bigdata_test.sync_test_table") == [
        {"row": {**row2, "val": "2.200000"}, "row_count": 1}]


# ---------------------------------------------------------------------------- DataHub Blob


def test_datahub_blob_as_text_and_as_base64_decode_the_same(built):
    """The DataHub document's Blob examples (absent keys instead of nulls), landed as text and
    as bytes (value_base64, format found by shape inside the bytes): the same silver rows,
    composite key [id, name], the update pair as one UPDATE, the heartbeat, the ALTER."""
    text, b64 = changes(built.lake, BLOB_TEXT), changes(built.lake, BLOB_B64)
    joe = {"id": "1", "name": "joe", "comment": "comment"}
    assert [(r["op"], r["before"], r["after"], r["row_key"]) for r in text] == [
        ("INSERT", None, joe, '["1","joe"]'),
        ("UPDATE", joe, {**joe, "comment": "com1"}, '["1","joe"]'),
        ("DELETE", {**joe, "comment": "com1"}, None, '["1","joe"]'),
    ]
    assert text[0]["pk_columns"] == ["id", "name"] and text[0]["table_id"] == "yunshi_db.t_shiyu_pk"
    strip = ("source_db", "table_id")
    assert [{k: v for k, v in r.items() if k not in strip} for r in b64] == \
           [{k: v for k, v in r.items() if k not in strip} for r in text]
    assert {r["table_id"] for r in b64} == {"yunshi_db_b64.t_shiyu_pk"}
    formats = built.lake.rows("""select topic, value_encoding, format_source, count(*) as n
                                 from silver.stg_cdc__messages where topic in (:a, :b)
                                 group by topic, value_encoding, format_source order by topic""",
                              a=BLOB_TEXT, b=BLOB_B64)
    assert formats == [{"topic": BLOB_B64, "value_encoding": "base64", "format_source": "shape", "n": 6},
                       {"topic": BLOB_TEXT, "value_encoding": "text", "format_source": "shape", "n": 6}]
    beats = built.lake.rows(f"""select topic, marker_kind, {iso_sql("event_ts")} from silver.cdc_heartbeats
                               where topic in (:a, :b) order by topic""", a=BLOB_TEXT, b=BLOB_B64)
    assert beats == [{"topic": t, "marker_kind": "HEARTBEAT", "event_ts": "2020-11-14T07:45:53.629Z"}
                     for t in (BLOB_B64, BLOB_TEXT)]


def test_datahub_blob_alter_with_decoded_ddlmeta(built):
    """The ALTER with ddlMeta: a DDL event with ddl.text, parsed, and the decoded ddlMeta."""
    rows = built.lake.rows(
        f"""select topic, vendor_op, table_id, ddl_text, ddl_dialect, ddl_action, ddl_columns, ddl_meta,
                  {iso_sql("event_ts")}, transform(sort_key, k -> cast(k as string)) as sort_key
           from silver.cdc_ddl_events where topic in (:a, :b) order by topic""", a=BLOB_TEXT, b=BLOB_B64)
    assert len(rows) == 2
    for row, db in zip(rows, ("yunshi_db_b64", "yunshi_db"), strict=True):
        meta = json.loads(row.pop("ddl_meta"))
        assert meta == {**DDLMETA_SUMMARY, "error": None}
        assert {k: v for k, v in row.items() if k != "topic"} == {
            "vendor_op": "ALTER", "table_id": f"{db}.t_shiyu_nopk",
            "ddl_text": "alter table t_shiyu_nopk add column holo text", "ddl_dialect": "mysql",
            "ddl_action": "ALTER", "ddl_columns": [{"name": "holo", "type": "TEXT", "change": "ADD",
                                                        "new_name": None, "position": None}],
            "event_ts": "2020-11-14T08:21:49.000Z", "sort_key": ["1605339516000000035"]}


# ---------------------------------------------------------------------------- by hand: Oracle, PostgreSQL, markers, DDL


def test_oracle_values_rowid_and_scn(built):
    """Oracle source: rowid is a column; scn follows sequenceId in sort_key; schemaName is
    the source schema. Values: LONG digits, STRING unicode, DOUBLE JSON number exact (35
    digits) and 1.5E-7 as plain digits, DOUBLE string "7.50" kept, BOOLEAN true/false, DATE
    epoch ms -> ISO-8601 UTC (1590315269123 -> 2020-05-24T10:14:29.123Z, -86400000 ->
    1969-12-31T00:00:00Z), BYTES base64 as given (the document's "测试text123"), NULL kept."""
    insert, update = [r for r in changes(built.lake, HAND) if r["kafka_offset"] in (0, 1)]
    after = {"ID": "123456789012345678", "NAME": "华为云 naïve \"q\" 🚀",
             "PRICE": "123456789876543212345678987654321.11", "ACTIVE": "true", "UPDATED": "2020-05-24T10:14:29.123Z",
             "PHOTO": "5rWL6K+VdGV4dDEyMw==", "RATIO": "0.00000015", "NOTE": None, "rowid": "AAIUMPAAFAACxExAAE"}
    assert base64.b64decode(after["PHOTO"]).decode("utf-8") == "测试text123"
    assert insert == {
        "kafka_offset": 0, "op": "INSERT", "vendor_op": "INSERT", "source_db": "ORCL", "source_schema": "SHOP",
        "source_table": "PRODUCTS", "table_id": "orcl.shop.products", "pk_columns": ["ID"],
        "row_key": '["123456789012345678"]', "before_row_key": None, "before": None, "after": after,
        "column_types": ORACLE_TYPES, "pair_key": None, "tx_id": None, "truncate_statement": None,
        "event_ts": "2020-05-24T10:14:29.000Z", "capture_ts": "2020-05-24T10:14:29.500Z",
        "sort_key": ["1620457642589000010", "2370284"],
    }
    assert update["op"] == "UPDATE" and update["sort_key"] == ["1620457642589000011", "2370290"]
    assert update["before"] == {**after, "PRICE": "7.50", "RATIO": "0.25"}
    assert update["after"] == {**after, "NAME": "x", "PRICE": "7.50", "ACTIVE": "false",
                               "UPDATED": "1969-12-31T00:00:00Z", "PHOTO": "", "RATIO": "0.25", "NOTE": "ok"}


def test_postgres_schema_name_and_dialect(built):
    """PostgreSQL source: schemaName in the table id; its ALTER is parsed as postgres."""
    (row,) = [r for r in changes(built.lake, HAND) if r["kafka_offset"] == 2]
    assert (row["source_schema"], row["table_id"], row["after"]) == ("public", "pgdb.public.accounts",
                                                                     {"id": "1", "ok": "false"})
    (ddl,) = built.lake.rows("""select ddl_dialect, ddl_action, table_id from silver.cdc_ddl_events
                                where topic = :t and kafka_offset = 14""", t=HAND)
    assert ddl == {"ddl_dialect": "postgres", "ddl_action": "ALTER", "table_id": "pgdb.public.accounts"}


def test_transaction_and_other_markers(built):
    """TRANSACTION_BEGIN/END -> TX_BEGIN/TX_END; XACOMMIT -> TX_END (it commits an XA
    transaction); GTID and XAROLLBACK -> OTHER."""
    rows = built.lake.rows("""select vendor_op, marker_kind, transform(sort_key, k -> cast(k as string)) as sk
                              from silver.cdc_heartbeats where topic = :t order by kafka_offset""", t=HAND)
    assert [(r["vendor_op"], r["marker_kind"], r["sk"]) for r in rows] == [
        ("TRANSACTION_BEGIN", "TX_BEGIN", ["6"]), ("TRANSACTION_END", "TX_END", ["7"]), ("GTID", "OTHER", ["8"]),
        ("XACOMMIT", "TX_END", ["9"]), ("XAROLLBACK", "OTHER", ["10"])]


def test_ddl_ops_and_truncate(built):
    """CREATE, ERASE, RENAME, CINDEX, DINDEX, QUERY, ALTER are DDL events with ddl.text (no
    ddlMeta: ddl_meta NULL); TRUNCATE is a TRUNCATE change that empties the table in gold."""
    rows = built.lake.rows("""select kafka_offset, vendor_op, ddl_text, ddl_meta from silver.cdc_ddl_events
                              where topic = :t order by kafka_offset""", t=HAND)
    assert [(r["kafka_offset"], r["vendor_op"], r["ddl_meta"]) for r in rows] == [
        (8, "CREATE", None), (9, "ERASE", None), (10, "RENAME", None), (11, "CINDEX", None), (12, "DINDEX", None),
        (13, "QUERY", None), (14, "ALTER", None)]
    assert rows[1]["ddl_text"] == "drop table t2"
    (truncate,) = [r for r in changes(built.lake, HAND) if r["kafka_offset"] == 16]
    assert (truncate["op"], truncate["table_id"], truncate["truncate_statement"]) == (
        "TRUNCATE", "dw_shop.events", "truncate table events")
    assert gold_rows(built.lake, "dw_shop.events") == []


def test_corrupt_ddlmeta_is_a_reject(built):
    """A DDL whose ddlMeta is not a Java-serialized DDLMeta is a reject with the reason."""
    assert [(r["kafka_offset"], r["reject_reason"]) for r in rejects(built.lake, HAND)] == [
        (17, "ddlMeta is not a Java-serialized DDLMeta: not a Java serialization stream (starts with 6e6f7420)"),
        (18, "ddlMeta is not a Java-serialized DDLMeta: the serialized object is JavaString, "
             "not com.alibaba.di.plugin.center.meta.DDLMeta"),
        (19, rejects(built.lake, HAND)[2]["reject_reason"]),
    ]
    assert rejects(built.lake, HAND)[2]["reject_reason"].startswith(
        "ddlMeta is not a Java-serialized DDLMeta: unreadable Java serialization")


def test_malformed_messages_are_rejects_with_reasons(built):
    rows = rejects(built.lake, BAD)
    assert [r["reject_reason"] for r in rows] == BAD_REASONS
    assert {(r["reject_stage"], r["vendor_format"]) for r in rows} == {("decode", "dataworks_json")}


# ---------------------------------------------------------------------------- halves across batches


def test_update_before_half_waits_for_its_partner(built):
    """An UPDATE_BEFOR landed and built alone waits (cdc_update_halves, is_paired false; no
    UPDATE in silver, gold unchanged; the build's accounting test passed); its UPDATE_AFTER
    landed later makes ONE UPDATE and gold follows."""
    first = built.first
    assert [(h["topic"], h["half"], h["pair_key"], h["image"]) for h in first["halves"] if h["topic"] == SPLIT] == [
        (SPLIT, "before", "101", {"id": "1", "v": "old"})]
    assert [h["half"] for h in first["halves"] if h["topic"] == SYNTH] == ["before"]
    assert [r["op"] for r in first["split_changes"]] == ["INSERT"]
    assert first["split_gold"] == [{"row": {"id": "1", "v": "old"}, "row_count": 1}]
    rows = changes(built.lake, SPLIT)
    assert [(r["op"], r["before"], r["after"], r["pair_key"]) for r in rows] == [
        ("INSERT", None, {"id": "1", "v": "old"}, None),
        ("UPDATE", {"id": "1", "v": "old"}, {"id": "1", "v": "new"}, "101")]
    assert gold_rows(built.lake, "dw_shop.split") == [{"row": {"id": "1", "v": "new"}, "row_count": 1}]
    assert built.lake.rows("select count(*) as n from silver.cdc_update_halves "
                           "where not is_paired and topic in (:a, :b)", a=SPLIT, b=SYNTH) == [{"n": 0}]


# ---------------------------------------------------------------------------- rendered stream


def test_rendered_stream_folds_to_the_reference(built):
    """synth.generate(300 changes) rendered as DataWorks JSON (two-message updates, landed in
    two batches cut between an UPDATE_BEFOR and its UPDATE_AFTER) folds in gold to
    synth.fold, with DATETIME as DataWorks sends it: an instant (ISO-8601 UTC)."""
    expected = renderer.expected_state(built.stream)
    got = {(r["table_id"], r["row_key"]): (r["row"], r["row_count"]) for r in built.lake.rows(
        "select table_id, row_key, row, row_count from gold.cdc_current_rows where table_id like :p",
        p=SYNTH_DB + ".%")}
    assert got == expected
    counts = built.lake.rows("select op, count(*) as n from silver.cdc_changes where topic = :t group by op",
                             t=SYNTH)
    rows = sum(len(c.rows) for c in built.stream.changes)
    assert sum(r["n"] for r in counts) == rows + 1  # one row per row change, plus the TRUNCATE
