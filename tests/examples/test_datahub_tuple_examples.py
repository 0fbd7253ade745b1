"""DataHub Tuple records written by DataWorks (datahub_tuple): the vendor document's example
rows decode as it describes (I, U before + U after -> ONE UPDATE, D); update halves landed
in different batches pair in the later build; both spellings of the execute-time column;
values (unicode, NULLs, 38-digit numbers, nested JSON); a table with a configured key and
tables without; the format found by shape; malformed records are rejects with reasons; a
rendered generated stream folds to the reference.

Sources: vendor-docs alibaba-datahub-tuple-blob.zh.txt (DataWorks "附录:DataHub消息格式",
TUPLE part) and tests/vectors/datahub/tuple_meta_columns_vendor_doc.csv (its example table:
meta columns only). The document shows no business columns and no `_source_table_` value:
the example rows get the Blob example's columns (id, name, comment: joe's insert, the update
of comment to "com1", the delete) and `_source_table_` "t_shiyu_pk" (a table name, as the
document describes the column). How a Tuple record reaches Kafka as JSON is not documented
(FORMATS.md §13 q8): each record here is one JSON object of its columns.

Tuple records name no key: keys are configured with var cdc_primary_keys, passed to both
builds (KEYS, in EXAMPLE_VARS). Times: `_execute_time_` is epoch ms, compared as UTC.

Two builds: everything lands before the first; the second brings update halves whose
partners waited in the first (hand-built and the second part of the rendered stream).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import synth
from renderers import datahub_tuple as renderer

if TYPE_CHECKING:
    from cdclake.lake import Lake

Row = dict[str, Any]

VECTORS = Path(__file__).resolve().parents[1] / "vectors"

DOC = "ex.datahub-tuple.vendor-doc"
HAND = "ex.datahub-tuple.hand-built"
SPLIT = "ex.datahub-tuple.split"
BAD = "ex.datahub-tuple.malformed"
SYNTH = "ex.datahub-tuple.synth"
SYNTH_DB = "dh_synth"

KEYS = {"t_shiyu_pk": ["id"], "shop.products": ["id"], "shop.split": ["id"],
        **{f"{SYNTH_DB}.{t}": cols for t, cols in synth.TABLES.items() if cols}}
EXAMPLE_VARS = {"cdc_primary_keys": KEYS}


def tuple_record(op: str | None, seq: Any, table: str | None, images: str | None, columns: Row,
                 time_column: str = "_execute_time_", time_ms: Any = 1700000000123) -> str:
    """One Tuple record as JSON text; `images` = the two flags ("YN", "NY"), None = absent."""
    meta: Row = {}
    if op is not None:
        meta["_operation_type_"] = op
    if seq is not None:
        meta["_sequence_id_"] = seq
    meta[time_column] = time_ms
    if table is not None:
        meta["_source_table_"] = table
    if images is not None:
        meta["_before_image_"], meta["_after_image_"] = images[0], images[1]
    return json.dumps({**meta, **columns}, ensure_ascii=False)


def raw_numbers(text: str, numbers: dict[str, str]) -> str:
    """Put number literals into JSON text in place of "@name@" strings (no float on the way)."""
    for name, digits in numbers.items():
        text = text.replace(f'"@{name}@"', digits)
    return text


# ---------------------------------------------------------------------------- the vendor document

JOE = {"id": 1, "name": "joe", "comment": "comment"}
JOE_LATER = {**JOE, "comment": "com1"}
DOC_COLUMNS = [JOE, JOE, JOE_LATER, JOE_LATER]  # the business columns we add, row by row


def doc_records() -> list[str]:
    with open(VECTORS / "datahub" / "tuple_meta_columns_vendor_doc.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    out = []
    for row, columns in zip(rows, DOC_COLUMNS, strict=True):
        record: Row = dict(row)
        record["_excute_time_"] = int(record["_excute_time_"])  # a number, as the example shows it
        record["_source_table_"] = "t_shiyu_pk"
        out.append(json.dumps({**record, **columns}))
    return out


# ---------------------------------------------------------------------------- hand-built records

NAME = "华为云 naïve \"q\" 🚀 Ωmega"
PRICE = "12345678901234567890123456.789012345678"  # 38 digits
BIG = "99999999999999999999999999999999999999"  # 38 digits
PRODUCT = {"id": 1, "name": NAME, "price": "@PRICE@", "big": "@BIG@", "ratio": "@RATIO@", "small": "@SMALL@",
           "active": True, "note": None, "attrs": {"b": [1, "x", None], "a": {"c": "@C@"}}, "tags": ["a", "b"],
           "op": "d"}  # a column named `op` with a Debezium op code: detection must not take it for Debezium
NUMBERS = {"PRICE": PRICE, "BIG": BIG, "RATIO": "1.5E-7", "SMALL": "-0.000123", "C": "1.10"}
PRODUCT_LATER = {**PRODUCT, "name": "x", "active": False, "note": "ok"}
AUDIT_A, AUDIT_B = {"k": "a", "v": 1}, {"k": "b", "v": None}

HAND_RECORDS = [
    raw_numbers(tuple_record("I", "7", "shop.products", "NY", PRODUCT), NUMBERS),                     # 0
    raw_numbers(tuple_record("U", "8", "shop.products", "YN", PRODUCT, "_excute_time_", 1700000001000),  # 1
                NUMBERS),
    raw_numbers(tuple_record("U", "8", "shop.products", "NY", PRODUCT_LATER, "_excute_time_", "1700000001000"),
                NUMBERS),                                                                                # 2
    tuple_record("I", 10, "shop.audit", "NY", AUDIT_A),                                                  # 3 (number)
    tuple_record("I", "11", "shop.audit", None, AUDIT_A),                                                # 4 (no flags)
    tuple_record("I", "12", "shop.audit", "NY", AUDIT_B),                                                # 5
    tuple_record("D", "13", "shop.audit", "YN", AUDIT_B),                                                # 6
    tuple_record("U", "14", "shop.audit", "YN", AUDIT_A),                                                # 7
    tuple_record("U", "14", "shop.audit", "NY", {"k": "a", "v": 2}),                                     # 8
    tuple_record("I", "15", " dhdb.public.accounts ", "NY", {"id": 5, "ok": False}, time_ms=None),      # 9
]

SPLIT_FIRST = [
    tuple_record("I", "100", "shop.split", "NY", {"id": 1, "v": "old"}),
    tuple_record("U", "101", "shop.split", "YN", {"id": 1, "v": "old"}),
    tuple_record("I", "102", "shop.split", "NY", {"id": 2, "v": "two"}),
    tuple_record("U", "103", "shop.split", "NY", {"id": 2, "v": "TWO"}),  # the after half first
]
SPLIT_SECOND = [
    tuple_record("U", "101", "shop.split", "NY", {"id": 1, "v": "new"}),
    tuple_record("U", "103", "shop.split", "YN", {"id": 2, "v": "two"}),
]

BAD_VALUES = [
    "{not json",                                                                                        # 0
    "[1]",                                                                                              # 1
    '"a string"',                                                                                       # 2
    tuple_record(None, "3", "t", "NY", {"id": 1}),                                                      # 3
    tuple_record("X", "4", "t", "NY", {"id": 1}),                                                       # 4
    tuple_record("I", "5", "t", "NY", {"id": 1}).replace('"_operation_type_": "I"', '"_operation_type_": null'),
    tuple_record("I", "6", "t", "YY", {"id": 1}),                                                       # 6
    tuple_record("U", "7", "t", "YY", {"id": 1}),                                                       # 7
    tuple_record("U", "8", "t", None, {"id": 1}),                                                       # 8
    tuple_record("D", "9", "t", "NY", {"id": 1}),                                                       # 9
    tuple_record("I", "10", "t", "NY", {"id": 1}).replace('"_before_image_": "N"', '"_before_image_": "yes"'),
    tuple_record("U", None, "t", "YN", {"id": 1}),                                                      # 11
    tuple_record("I", "abc", "t", "NY", {"id": 1}),                                                     # 12
    tuple_record("I", "13", None, "NY", {"id": 1}),                                                     # 13
    tuple_record("I", "14", "a..b", "NY", {"id": 1}),                                                   # 14
    tuple_record("I", "15", "t", "NY", {}),                                                             # 15
    tuple_record("I", "16", "shop.products", "NY", {"name": "no id"}),                                  # 16
]
BAD_REASONS = [
    "value is not valid JSON",
    "value is a JSON array, not an object",
    "value is a JSON scalar, not an object",
    'no "_operation_type_" field',
    'unknown "_operation_type_" value "X" (expected I, U or D)',
    '"_operation_type_" is null or not a string',
    'image flags contradict "_operation_type_" I: "_before_image_" Y, "_after_image_" Y '
    "(an insert has the after image only: N, Y)",
    'image flags contradict "_operation_type_" U: "_before_image_" Y, "_after_image_" Y '
    "(an update record is one half: Y, N for the before image or N, Y for the after image)",
    'image flags contradict "_operation_type_" U: "_before_image_" absent, "_after_image_" absent '
    "(an update record is one half: Y, N for the before image or N, Y for the after image)",
    'image flags contradict "_operation_type_" D: "_before_image_" N, "_after_image_" Y '
    "(a delete has the before image only: Y, N)",
    '"_before_image_" is "yes", not Y or N',
    'U without "_sequence_id_", which pairs it with the other half of its update',
    '"_sequence_id_" is not an integer: "abc"',
    '"_source_table_" is missing or empty',
    '"_source_table_" is not table, db.table or db.schema.table: "a..b"',
    "no table columns besides the meta columns",
    "the image lacks primary key column(s) id (var cdc_primary_keys), so the row it changes cannot be identified",
    "value is not UTF-8 text",
]


# ---------------------------------------------------------------------------- helpers


def records(topic: str, values: list[str]) -> list[synth.Record]:
    return [synth.Record(topic, 0, i, 1700000000000 + i, v) for i, v in enumerate(values)]


def land(lake: Lake, path: Path, recs: list[synth.Record], **kwargs: Any) -> None:
    synth.write_records(path, recs)
    lake.land([path], **kwargs)


def iso_sql(column: str) -> str:
    return f"""date_format({column}, "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'") as {column}"""


def changes(lake: Lake, topic: str) -> list[Row]:
    return lake.rows(
        f"""select kafka_offset, op, vendor_op, source_db, source_schema, source_table, table_id, pk_columns,
                   row_key, before_row_key, before, after, column_types, pair_key,
                   {iso_sql("event_ts")}, capture_ts, transform(sort_key, k -> cast(k as string)) as sort_key
            from silver.cdc_changes where topic = :topic order by kafka_offset""",
        topic=topic,
    )


def gold_rows(lake: Lake, table_id: str) -> list[Row]:
    return lake.rows("select row_key, row, row_count from gold.cdc_current_rows where table_id = :t order by row_key",
                     t=table_id)


# ---------------------------------------------------------------------------- the lake


@dataclass(frozen=True)
class Built:
    lake: Lake
    first: dict[str, Any]  # what the first build left (waiting halves, gold before the partners)
    stream: synth.Stream


def land_examples(lake: Lake, tmp: Path) -> Iterator[None]:
    """Two batches (tests/examples/conftest.py)."""
    stream = synth.generate(SYNTH_DB, n_changes=300)
    rendered = renderer.render(stream, SYNTH)
    # cut between a before half and its after half (in the order of the stream)
    cut = next(i for i, r in enumerate(rendered) if i > len(rendered) // 2
               and '"_operation_type_": "U", ' in r.value and '"_before_image_": "Y"' in r.value) + 1

    # neither a declared format nor a topic_formats row: found by shape
    land(lake, tmp / "doc.jsonl", records(DOC, doc_records()))
    land(lake, tmp / "hand.jsonl", records(HAND, HAND_RECORDS))
    land(lake, tmp / "split-1.jsonl", records(SPLIT, SPLIT_FIRST))
    bad = records(BAD, BAD_VALUES)
    bad.append(synth.Record.of_bytes(BAD, 0, len(bad), 1700000000000, b"\xff\xfe{\x80"))
    land(lake, tmp / "bad.jsonl", bad, declared_format="datahub_tuple")
    land(lake, tmp / "synth-1.jsonl", rendered[:cut])
    yield

    first = {
        "halves": lake.rows("""select topic, half, pair_key, image from silver.cdc_update_halves
                               where topic in (:split, :synth) and not is_paired order by topic, pair_key""",
                            split=SPLIT, synth=SYNTH),
        "split_gold": gold_rows(lake, "shop.split"),
        "split_ops": [r["op"] for r in changes(lake, SPLIT)],
    }
    land(lake, tmp / "split-2.jsonl", [synth.Record(SPLIT, 0, 4 + i, 1700000000100 + i, v)
                                       for i, v in enumerate(SPLIT_SECOND)])
    land(lake, tmp / "synth-2.jsonl", rendered[cut:])
    yield
    return Built(lake, first, stream)


# ---------------------------------------------------------------------------- the vendor document


def test_vendor_doc_rows_insert_update_pair_delete(built):
    """The document's four rows: I -> INSERT; the two U rows (one _sequence_id_, before then
    after image) -> ONE UPDATE at the after row's position; D -> DELETE. `_excute_time_` (the
    document's spelling) is the event time; `_source_table_` a bare table name (no db);
    key `id` configured for table t_shiyu_pk."""
    joe = {"id": "1", "name": "joe", "comment": "comment"}
    joe_later = {**joe, "comment": "com1"}
    common = {"source_db": None, "source_schema": None, "source_table": "t_shiyu_pk", "table_id": "t_shiyu_pk",
              "pk_columns": ["id"], "row_key": '["1"]', "capture_ts": None,
              "column_types": {"id": "BIGINT", "name": "STRING", "comment": "STRING"}}
    assert changes(built.lake, DOC) == [
        {**common, "kafka_offset": 0, "op": "INSERT", "vendor_op": "I", "before": None, "after": joe,
         "before_row_key": None, "pair_key": None, "event_ts": "2022-04-15T03:02:06.000Z",
         "sort_key": ["1649991610688000000"]},
        {**common, "kafka_offset": 2, "op": "UPDATE", "vendor_op": "U+U", "before": joe, "after": joe_later,
         "before_row_key": '["1"]', "pair_key": "1649991610688000001", "event_ts": "2022-04-15T03:02:36.000Z",
         "sort_key": ["1649991610688000001"]},
        {**common, "kafka_offset": 3, "op": "DELETE", "vendor_op": "D", "before": joe_later, "after": None,
         "before_row_key": None, "pair_key": None, "event_ts": "2022-04-15T03:02:54.000Z",
         "sort_key": ["1649991610688000002"]},
    ]
    halves = built.lake.rows("""select kafka_offset, half, is_paired from silver.cdc_update_halves
                                where topic = :t order by kafka_offset""", t=DOC)
    assert halves == [{"kafka_offset": 1, "half": "before", "is_paired": True},
                      {"kafka_offset": 2, "half": "after", "is_paired": True}]
    assert gold_rows(built.lake, "t_shiyu_pk") == []
    history = built.lake.rows("""select op, is_deleted from gold.cdc_row_history where table_id = 't_shiyu_pk'
                                 order by valid_from""")
    assert [(h["op"], h["is_deleted"]) for h in history] == [("INSERT", False), ("UPDATE", False), ("DELETE", True)]


def test_records_without_declared_format_are_found_by_shape(built):
    """No declared format, no topic_formats row: `_operation_type_` decides, also for a record
    whose table has a column `op` = "d" (which the Debezium rule would otherwise claim)."""
    formats = built.lake.rows("""select topic, vendor_format, format_source, count(*) as n
                                 from silver.stg_cdc__messages where topic in (:a, :b, :c)
                                 group by topic, vendor_format, format_source order by topic""",
                              a=DOC, b=HAND, c=SYNTH)
    assert {r["topic"]: (r["vendor_format"], r["format_source"], r["n"]) for r in formats} == {
        DOC: ("datahub_tuple", "shape", 4),
        HAND: ("datahub_tuple", "shape", len(HAND_RECORDS)),
        SYNTH: ("datahub_tuple", "shape", len(renderer.render(built.stream, SYNTH))),
    }


# ---------------------------------------------------------------------------- hand-built: values, keys, spellings


def test_values_unicode_nulls_exact_numbers_nested_json(built):
    """Values: unicode kept; JSON null -> NULL with the column kept; 38-digit decimal and
    integer exact; 1.5E-7 as plain digits; nested object/array as compact JSON (keys sorted,
    1.10 -> 1.1: VARIANT keeps no trailing fraction zeros); booleans true/false. column_types
    = the JSON type seen. `_execute_time_` (the correct spelling) gives event_ts; a numeric
    `_sequence_id_` is read like a string one."""
    insert, update = [r for r in changes(built.lake, HAND) if r["table_id"] == "shop.products"]
    after = {"id": "1", "name": NAME, "price": PRICE, "big": BIG, "ratio": "0.00000015", "small": "-0.000123",
             "active": "true", "note": None, "attrs": '{"a":{"c":1.1},"b":[1,"x",null]}', "tags": '["a","b"]',
             "op": "d"}
    types = insert.pop("column_types")
    assert insert == {
        "kafka_offset": 0, "op": "INSERT", "vendor_op": "I", "source_db": "shop", "source_schema": None,
        "source_table": "products", "table_id": "shop.products", "pk_columns": ["id"], "row_key": '["1"]',
        "before_row_key": None, "before": None, "after": after, "pair_key": None,
        "event_ts": "2023-11-14T22:13:20.123Z", "capture_ts": None, "sort_key": ["7"],
    }
    assert {k: v for k, v in types.items() if k not in ("attrs", "tags")} == {
        "id": "BIGINT", "name": "STRING", "price": "DECIMAL(38,12)", "big": "DECIMAL(38,0)", "ratio": "DOUBLE",
        "small": "DECIMAL(6,6)", "active": "BOOLEAN", "note": "VOID", "op": "STRING"}
    assert types["attrs"].startswith("OBJECT<") and types["tags"].startswith("ARRAY<")
    # the update's halves spell the time column as the document does (a number, then a string)
    assert (update["op"], update["vendor_op"], update["pair_key"], update["sort_key"], update["event_ts"]) == (
        "UPDATE", "U+U", "8", ["8"], "2023-11-14T22:13:21.000Z")
    assert update["before"] == after
    assert update["after"] == {**after, "name": "x", "active": "false", "note": "ok"}
    assert gold_rows(built.lake, "shop.products") == [{"row_key": '["1"]', "row": update["after"], "row_count": 1}]


def test_table_without_configured_key_is_a_multiset(built):
    """shop.audit has no key configured: pk_columns empty, row_key = the whole row; two equal
    inserts count 2 (an I without image flags is an insert all the same); the update changes
    one copy; the delete removes its row."""
    rows = [r for r in changes(built.lake, HAND) if r["table_id"] == "shop.audit"]
    assert [(r["op"], r["pk_columns"], r["sort_key"]) for r in rows] == [
        ("INSERT", [], ["10"]), ("INSERT", [], ["11"]), ("INSERT", [], ["12"]), ("DELETE", [], ["13"]),
        ("UPDATE", [], ["14"])]
    assert rows[2]["after"] == {"k": "b", "v": None}
    assert gold_rows(built.lake, "shop.audit") == [
        {"row_key": '{"k":"a","v":"1"}', "row": {"k": "a", "v": "1"}, "row_count": 1},
        {"row_key": '{"k":"a","v":"2"}', "row": {"k": "a", "v": "2"}, "row_count": 1},
    ]


def test_qualified_source_table_and_missing_time(built):
    """`_source_table_` "db.schema.table" (spaces trimmed) fills all three parts; a record
    without an execute time has no event_ts."""
    (row,) = [r for r in changes(built.lake, HAND) if r["kafka_offset"] == 9]
    assert (row["source_db"], row["source_schema"], row["source_table"], row["table_id"], row["event_ts"],
            row["after"]) == ("dhdb", "public", "accounts", "dhdb.public.accounts", None, {"id": "5", "ok": "false"})


# ---------------------------------------------------------------------------- halves across batches


def test_update_halves_in_two_batches_pair_in_the_later_build(built):
    """A before half (seq 101) and an after half (seq 103) built without their partners wait
    in cdc_update_halves (no UPDATE, gold unchanged); the partners landed later make ONE
    UPDATE each, whichever half came first, and gold follows."""
    first = built.first
    assert [(h["half"], h["pair_key"], h["image"]) for h in first["halves"] if h["topic"] == SPLIT] == [
        ("before", "101", {"id": "1", "v": "old"}), ("after", "103", {"id": "2", "v": "TWO"})]
    assert [h["half"] for h in first["halves"] if h["topic"] == SYNTH] == ["before"]
    assert first["split_ops"] == ["INSERT", "INSERT"]
    assert [r["row"] for r in first["split_gold"]] == [{"id": "1", "v": "old"}, {"id": "2", "v": "two"}]
    rows = changes(built.lake, SPLIT)
    updates = sorted((r["pair_key"], r["kafka_offset"], r["before"], r["after"]) for r in rows if r["op"] == "UPDATE")
    assert updates == [  # each at its after half's position: 103's came in the first batch
        ("101", 4, {"id": "1", "v": "old"}, {"id": "1", "v": "new"}),
        ("103", 3, {"id": "2", "v": "two"}, {"id": "2", "v": "TWO"})]
    assert [r["row"] for r in gold_rows(built.lake, "shop.split")] == [{"id": "1", "v": "new"}, {"id": "2", "v": "TWO"}]
    # no half of this module's topics waits any more (the lake is shared: others' may)
    assert built.lake.rows("""select count(*) as n from silver.cdc_update_halves
                              where topic like 'ex.datahub-tuple.%' and not is_paired""") == [{"n": 0}]


# ---------------------------------------------------------------------------- rejects


def test_malformed_records_are_rejects_with_reasons(built):
    rows = built.lake.rows("""select kafka_offset, reject_stage, reject_reason, vendor_format from silver.cdc_rejects
                              where topic = :t order by kafka_offset""", t=BAD)
    assert [r["reject_reason"] for r in rows] == BAD_REASONS
    assert {(r["reject_stage"], r["vendor_format"]) for r in rows} == {("decode", "datahub_tuple")}
    assert built.lake.rows("select count(*) as n from silver.cdc_rejects where topic in (:a, :b, :c, :d)",
                           a=DOC, b=HAND, c=SPLIT, d=SYNTH) == [{"n": 0}]


# ---------------------------------------------------------------------------- rendered stream


def test_rendered_stream_folds_to_the_reference(built):
    """synth.generate(300 changes) rendered as Tuple records (all tables in one topic, keys of
    orders and order_lines configured, events unkeyed and sharded at random, the TRUNCATE as
    deletes), landed in two batches cut between an update's halves, folds in gold to
    synth.fold; DECIMAL columns travel as JSON numbers and come back without trailing
    fraction zeros (renderer.expected_state)."""
    expected = renderer.expected_state(built.stream)
    got = {(r["table_id"], r["row_key"]): (r["row"], r["row_count"]) for r in built.lake.rows(
        "select table_id, row_key, row, row_count from gold.cdc_current_rows where table_id like :p",
        p=SYNTH_DB + ".%")}
    assert got == expected
    # the only difference from synth.fold: trailing fraction zeros of decimals
    fold = synth.fold(built.stream)
    assert fold.keys() == expected.keys()
    rendered = renderer.render(built.stream, SYNTH)
    halves = sum('"_operation_type_": "U"' in r.value for r in rendered)
    counts = built.lake.rows("select count(*) as n from silver.cdc_changes where topic = :t", t=SYNTH)
    assert counts == [{"n": len(rendered) - halves // 2}]
