"""Huawei DRS JSON for DDS (drs_mongo_json): the vendor document's five examples decode to
the changes they describe and fold to the documents they imply; Mongo shell syntax of every
kind becomes canonical text; update-operator patches ($set, $unset, dotted paths, $inc)
applied by gold equal applying them in plain Python, also out of Kafka order and across
landing batches; generated streams of 1,000 changes fold like the Python fold, in order and
shuffled with 10% re-deliveries over two builds; bad messages are rejects with reasons.

Source: vendor-docs/huawei-drs-kafka-formats.zh.txt (表3 DDS到Kafka), tests/vectors/
huawei_drs_json/dds_mongodb_ops.ndjson (its five examples). The session time zone is UTC.

The decoder's own behaviour (vendor examples, shell types, rejects) is unit-tested over
the messages alone (tests/decoder_support.py, no build); the folds run in the examples
lake (tests/examples/conftest.py) over two builds: everything but the second halves lands
before the first.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import synth
from renderers import drs_mongo_json as mongo
from udfs.mongo import decode_change
from udfs.mongo_shell import MongoSyntaxError, canonical, dumps, parse

if TYPE_CHECKING:
    from cdclake.lake import Lake
    from decoder_support import Decoders

Row = dict[str, Any]
OID = "64650cf67dc36a464e76e583"
DOC, PATCH, UNKNOWN, DDL, LATE = (f"ex.mongo.{n}" for n in ("doc", "patch", "unknown", "ddl", "late"))
GEN_ORDER, GEN_DISORDER = "gen.mongo.inorder", "gen.mongo.disorder"
TOPICS = [DOC, PATCH, UNKNOWN, DDL, LATE, GEN_ORDER, GEN_DISORDER]
VECTORS = Path(__file__).resolve().parents[1] / "vectors"
FIRST_BUILD: dict[str, Any] = {}  # what gold held after the first of the two builds


def message(op: str, record_type: str, value: str | None, where: str | None = None, *, seq: int = 1,
            cluster: str | None = "1700000000:1", coll: str | None = "c", db: str = "d") -> str:
    body: Row = {"id": seq, "op": op, "dbType": "MongoDB", "db": db, "coll": coll, "value": value,
                 "where": where, "recordType": record_type, "extra": record_type,
                 "es": 1699971200000, "ts": 1699971200130}
    if coll is None:
        del body["coll"]
    if cluster is not None:
        body["clusterTime"] = cluster
    return json.dumps(body, ensure_ascii=False)


def write(tmp: Path, name: str, records: list[synth.Record]) -> Path:
    path = tmp / f"{name}.jsonl"
    synth.write_records(path, records)
    return path


def plain(topic: str, lines: list[str], partition_of=lambda i: 0, first_offset: int = 0) -> list[synth.Record]:
    offsets: dict[int, int] = {}
    out = []
    for i, line in enumerate(lines):
        p = partition_of(i)
        out.append(synth.Record(topic, p, offsets.get(p, first_offset), 1700000000000 + i, line))
        offsets[p] = offsets.get(p, first_offset) + 1
    return out


TYPED_VALUE = (
    '{ _id: ObjectId(\'64650cf67dc36a464e76e584\'), "s": "say \\"ObjectId(\\"x\\")\\" NumberLong(1)", '
    "'single': 'quoted', n: 42, f: 1.50, big: 123456789876543212345678987654321.110, e: 1e3, "
    'long: NumberLong("9223372036854775807"), int: NumberInt(7), dec: NumberDecimal("0.000000000000000000001"), '
    'when: ISODate("2023-05-17T17:20:54.123+08:00"), d0: new Date(0), ts: Timestamp(1684344064, 9), '
    'bin: BinData(0, "AAEC/w=="), hex: HexData(0, "00ff"), uuid: UUID("0123456789abcdef0123456789abcdef"), '
    'lo: MinKey, hi: MaxKey(), yes: true, no: false, nothing: null, undef: undefined, '
    'nested: {a: [1, {b: ObjectId("64650cf67dc36a464e76e585")}], "华为": "云"}, empty: {}, list: [] }'
)

TYPED_EXPECTED = {
    "_id": "64650cf67dc36a464e76e584", "s": 'say "ObjectId("x")" NumberLong(1)', "single": "quoted", "n": "42",
    "f": "1.50", "big": "123456789876543212345678987654321.110", "e": "1000", "long": "9223372036854775807",
    "int": "7", "dec": "0.000000000000000000001", "when": "2023-05-17T09:20:54.123Z",
    "d0": "1970-01-01T00:00:00.000Z", "ts": '{"$timestamp":{"t":1684344064,"i":9}}', "bin": "AAEC/w==",
    "hex": "AP8=", "uuid": "01234567-89ab-cdef-0123-456789abcdef", "lo": '{"$minKey":1}', "hi": '{"$maxKey":1}',
    "yes": "true", "no": "false", "nothing": None, "undef": None,
    "nested": '{"a":[1,{"b":{"$oid":"64650cf67dc36a464e76e585"}}],"华为":"云"}', "empty": "{}", "list": "[]",
}

BAD_MESSAGES: list[tuple[str, str]] = [
    ("not json", "value is not valid JSON"),
    (json.dumps({"coll": "c", "recordType": "insert", "value": "{}"}), 'no "op" field'),
    (message("UPSERT", "insert", f'{{"_id": ObjectId("{OID}")}}'), 'unknown "op" value "UPSERT"'),
    (message("INSERT", "insert", f'{{"_id": ObjectId("{OID}"), "c1": "baz"'),
     "value is not valid Mongo shell syntax: expected ',' or '}', found the end of the text at character 58"),
    (message("INSERT", "insert", '{"_id": ObjectId("xyz")}'),
     "value is not valid Mongo shell syntax: ObjectId needs 24 hex digits, got 'xyz' at character 9"),
    (message("UPDATE", "update", '{"$pull": {"tags": "a"}}', f'{{"_id": ObjectId("{OID}")}}'),
     "update operator $pull is not supported"),
    (message("UPDATE", "update", '{"$set": {"tags.$": "a"}}', f'{{"_id": ObjectId("{OID}")}}'),
     "$set path 'tags.$' is positional or empty; it cannot be applied without the query"),
    (message("UPDATE", "update", '{"$set": {"a": 1}}', None), "an update without where._id names no document"),
    (message("UPDATE", "update", '{"$set": {"a": 1}, "b": 2}', f'{{"_id": ObjectId("{OID}")}}'),
     "value mixes update operators and fields"),
    (message("UPDATE", "update", '{"$set": {"a": 1}}', '{"_id": ObjectId("64650cf67dc36a464e76e583")'),
     "where is not valid Mongo shell syntax: expected ',' or '}', found the end of the text at character 45"),
    (message("INSERT", "insert", '{"$set": {"a": 1}}'), "INSERT whose value is update operators, not a document"),
    (message("INSERT", "insert", '{"a": 1}'), "the document has no _id, and where names none"),
    (message("INSERT", "insert", f'{{"_id": ObjectId("{OID}")}}', cluster="yesterday"),
     '"clusterTime" is not "<seconds>:<increment>": "yesterday"'),
    (message("INSERT", "insert", f'{{"_id": ObjectId("{OID}")}}', coll=None), '"coll" is missing or empty'),
    (message("INSERT", "insert", None), "INSERT without \"value\""),
]


# --------------------------------------------------------------------------- pure Python


def test_shell_syntax_to_relaxed_extended_json():
    doc = parse(TYPED_VALUE)
    assert {k: canonical(v) for k, v in doc.items()} == TYPED_EXPECTED
    assert (dumps(parse('{"a": NumberDecimal("1.10"), b: [MinKey]}'))
            == '{"a":{"$numberDecimal":"1.10"},"b":[{"$minKey":1}]}')


@pytest.mark.parametrize("text", ["{a: 1", "{a: Foo(1)}", "{a: 1} trailing", "{'a' 1}", '{a: "open}', "{a: ISODate()}",
                                  '{a: BinData(0, "***")}', '{a: UUID("12")}', "{a: NumberDecimal(\"x\")}"])
def test_invalid_shell_syntax_raises_with_position(text):
    with pytest.raises(MongoSyntaxError, match=r"at character [0-9]+"):
        parse(text)


def reference_patch(doc: Row, ops: Row) -> Row:
    out = copy.deepcopy(doc)
    mongo.apply(out, ops)
    return out


def test_decode_change_kinds():
    vendor = [json.loads(line) for line in
              (VECTORS / "huawei_drs_json" / "dds_mongodb_ops.ndjson").read_text().splitlines()]
    kinds = [decode_change(m["value"], m["where"])["kind"] for m in vendor]
    assert kinds == ["document", "document", "operators", "operators", "document"]
    patch = decode_change(vendor[3]["value"], vendor[3]["where"])
    assert json.loads(patch["document"]) == {"_id": {"$oid": OID}, "$unset": {"c1": True}, "$set": {"column1": "aaa"}}
    assert patch["fields"] == {"_id": OID, "column1": "aaa"}


def test_every_supported_operator_applies_as_mongodb_does():
    from udfs.mongo import apply_operators
    from udfs.mongo_shell import Number

    doc = parse('{_id: 1, n: 5, d: NumberDecimal("1.5"), s: "b", a: [1, 2], o: {p: {q: 1}}, old: "x"}')
    ops = parse('{$mul: {n: 3, missing: 2}, $inc: {d: NumberDecimal("0.25")}, $min: {s: "a"}, $max: {n: 100},'
                ' $rename: {old: "new"}, $push: {a: {$each: [3, 3]}}, $addToSet: {"o.p.r": 1},'
                ' $pop: {"o.list": 1}, $setOnInsert: {never: 1}, $unset: {"o.p.q": ""}}')
    assert dumps(apply_operators(doc, ops)) == (
        '{"_id":1,"n":100,"d":{"$numberDecimal":"1.75"},"s":"a","a":[1,2,3,3],"o":{"p":{"r":[1]}},'
        '"missing":0,"new":"x"}')
    # a step that cannot apply ($inc of a text) leaves the field; the others still apply
    assert apply_operators({"t": "text", "n": Number("1")}, {"$inc": {"t": Number("1"), "n": Number("2")}}) == {
        "t": "text", "n": "3"}
    # $unset of an array element keeps the array's length; $set past its end pads with null
    assert dumps(apply_operators(parse("{a: [1, 2]}"), parse('{$unset: {"a.0": 1}, $set: {"a.3": 4}}'))) == \
        '{"a":[null,2,null,4]}'


# --------------------------------------------------------------------------- the lake

def patch_sequence(n: int, seed: int) -> tuple[Row, list[Row]]:
    """A document and `n` random patches ($set / $unset of top-level and dotted paths, $inc)."""
    rng = random.Random(seed)
    doc = mongo._document(rng, mongo.ObjectId(OID))
    live = copy.deepcopy(doc)
    patches = []
    for _ in range(n):
        ops = mongo._patch(rng, live)
        mongo.apply(live, ops)
        patches.append(ops)
    return doc, patches


def patch_messages(doc: Row, patches: list[Row]) -> list[str]:
    where = mongo.shell({"_id": doc["_id"]})
    lines = [message("INSERT", "insert", mongo.shell(doc), seq=1, cluster="1700000000:1", coll="docs")]
    for i, ops in enumerate(patches, start=2):
        # three patches per second: the increment orders those of one second
        lines.append(message("UPDATE", "update", mongo.shell(ops), where, seq=i,
                             cluster=f"{1700000000 + i // 3}:{i % 3 + 1}", coll="docs"))
    return lines


# a document whose patch lands in the first batch and a replacement from before that patch
# in the third: the third build folds the document again from all its changes, and must
# apply the patch it already had onto the late replacement, though no new change is a patch
LATE_ID = mongo.ObjectId("64650cf67dc36a464e76e584")
LATE_DOCS = {"inserted": {"_id": LATE_ID, "a": 1, "b": 1}, "replaced": {"_id": LATE_ID, "a": 9, "b": 1}}


def late_messages() -> tuple[list[str], list[str]]:
    """(the first batch: insert and patch; the third: the late replacement)"""
    where = mongo.shell({"_id": LATE_ID})
    first = [message("INSERT", "insert", mongo.shell(LATE_DOCS["inserted"]), seq=1, coll="late"),
             message("UPDATE", "update", '{"$set": {"b": 2}}', where, seq=3, cluster="1700000003:1", coll="late")]
    second = [message("UPDATE", "replace", mongo.shell(LATE_DOCS["replaced"]), where, seq=2,
                      cluster="1700000002:1", coll="late")]
    return first, second


@cache
def generated_changes() -> dict[str, list[mongo.MongoChange]]:
    return {GEN_ORDER: mongo.generate(1000, seed=5), GEN_DISORDER: mongo.generate(1000, seed=6)}


@cache
def patch_case() -> tuple[Row, list[Row]]:
    return patch_sequence(60, seed=9)


@pytest.fixture(scope="module")
def generated() -> dict[str, list[mongo.MongoChange]]:
    return generated_changes()


@pytest.fixture(scope="module")
def patched() -> tuple[Row, list[Row]]:
    return patch_case()


def land_examples(lake: Lake, tmp: Path) -> Iterator[None]:
    """Three batches (tests/examples/conftest.py); the lake is the result."""
    vectors, generated, patched = VECTORS, generated_changes(), patch_case()
    # the vendor examples as plain text without a format: detected by shape
    lake.land([vectors / "huawei_drs_json" / "dds_mongodb_ops.ndjson"], topic=DOC)
    lake.land([write(tmp, "unknown", plain(UNKNOWN, [
        message("UPDATE", "update", '{"$set": {"a.b": 1, "c": "x"}, "$unset": {"z": true}}',
                '{"_id": NumberLong(77)}', coll="orphans")]))])
    lake.land([write(tmp, "ddl", plain(DDL, [
        message("DDL", "", '{"drop": "old_coll"}', coll="old_coll"),
        message("DDL", "", '{"renameCollection": "d.a", "to": "d.b"}', seq=2, cluster="1700000001:1")]))])
    # the patched document: the insert and the first half of its patches, over three
    # partitions in a shuffled order; the second half lands before the second build
    lines = patch_messages(*patched)
    records = synth.shuffled(plain(PATCH, lines, partition_of=lambda i: i % 3), seed=3)
    first = [r for r in records if json.loads(r.value)["id"] <= 31]
    lake.land([write(tmp, "patch1", first)], declared_format="drs_mongo_json")
    late_first, late_second = late_messages()
    lake.land([write(tmp, "late1", plain(LATE, late_first))], declared_format="drs_mongo_json")
    lake.land([write(tmp, "gen-order", mongo.render("gen_order", generated[GEN_ORDER], GEN_ORDER))])
    disorder = synth.shuffled(synth.redeliver(mongo.render("gen_disorder", generated[GEN_DISORDER], GEN_DISORDER), 0.1))
    halves = list(synth.split(disorder, 2))
    lake.land([write(tmp, "gen-disorder-1", halves[0])], declared_format="drs_mongo_json")
    yield
    FIRST_BUILD["patched"] = gold_rows(lake, "d.docs")
    FIRST_BUILD["late"] = gold_rows(lake, "d.late")
    lake.land([write(tmp, "patch2", [r for r in records if json.loads(r.value)["id"] > 31])],
              declared_format="drs_mongo_json")
    lake.land([write(tmp, "gen-disorder-2", halves[1])], declared_format="drs_mongo_json")
    yield
    # the third build: no new change of the lake is a patch (the history's Python fold of
    # documents must still run, for the late replacement's key)
    lake.land([write(tmp, "late2", plain(LATE, late_second, first_offset=len(late_first)))],
              declared_format="drs_mongo_json")
    yield
    return lake


def decoded(decoders: Decoders, values: list[str]) -> list[Row]:
    """The rows decode_drs_mongo_json gives for these message values (no build), times as
    ISO-8601 text and sort keys as text, like `changes`."""
    rows = decoders.rows("drs_mongo_json", values)
    for r in rows:
        r["event_ts"] = r["event_ts"] and r["event_ts"].strftime("%Y-%m-%dT%H:%M:%SZ")
        r["capture_ts"] = r["capture_ts"] and r["capture_ts"].strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        r["sort_key"] = r["sort_key"] and [str(k) for k in r["sort_key"]]
    return rows


def gold_rows(lake: Lake, table_id: str) -> dict[str, Row]:
    return {r["row_key"]: r["row"] for r in lake.rows(
        "select row_key, row from gold.cdc_current_rows where table_id = :t", t=table_id)}


def key(value: str) -> str:
    return json.dumps([value])


def test_vendor_examples_decode_as_documented(decoders, vectors):
    rows = decoded(decoders, (vectors / "huawei_drs_json" / "dds_mongodb_ops.ndjson").read_text().splitlines())
    assert [(r["record_kind"], r["op"], r["vendor_op"]) for r in rows] == [
        ("change", "INSERT", "INSERT/insert"), ("change", "UPDATE", "UPDATE/replace"),
        ("change", "UPDATE", "UPDATE/update"), ("change", "UPDATE", "UPDATE/update"),
        ("change", "DELETE", "DELETE/doc")]
    assert {r["table_id"] for r in rows} == {"ljx.ljx"}
    assert {r["row_key"] for r in rows} == {key(OID)}
    assert all(r["pk_columns"] == ["_id"] for r in rows)
    assert rows[0]["after"] == {"_id": OID, "c1": "baz", "tags": '["mongodb","database","NoSQL"]'}
    assert rows[0]["column_types"] == {"_id": "objectId", "c1": "string", "tags": "array"}
    assert (rows[1]["after"], rows[1]["after_is_partial"]) == ({"_id": OID, "c1": "sss"}, False)
    assert (rows[2]["after"], rows[2]["after_is_partial"]) == ({"_id": OID, "c1": "aaa"}, True)
    # a patch carries its operators, every other change its whole document
    assert json.loads(rows[3]["update_operators"]) == {"_id": {"$oid": OID}, "$unset": {"c1": True},
                                                       "$set": {"column1": "aaa"}}
    assert [r["update_operators"] is not None for r in rows] == [False, False, True, True, False]
    assert [r["document"] is not None for r in rows] == [True, True, False, False, True]
    assert (rows[4]["before"], rows[4]["before_is_partial"], rows[4]["after"]) == ({"_id": OID}, True, None)
    # clusterTime orders and dates the changes (the oplog clock); es is another clock
    assert [r["sort_key"] for r in rows] == [["1684344064", "1", "256"], ["1684344904", "9", "340"],
                                             ["1684345365", "1", "386"], ["1684345648", "1", "414"],
                                             ["1684346209", "1", "471"]]
    assert rows[0]["event_ts"] == "2023-05-17T17:21:04Z"
    assert rows[0]["capture_ts"] == "2023-05-17T09:18:31.576Z"


def test_vendor_examples_fold_to_the_documents_they_imply(built):
    history = built.rows(
        """select row, op, is_deleted from gold.cdc_row_history where table_id = 'ljx.ljx'
           order by sort_key""")
    tags = '["mongodb","database","NoSQL"]'
    # landed without a format: routed by shape
    assert built.rows("select distinct format_source from silver.stg_cdc__messages where topic = :t",
                           t=DOC) == [{"format_source": "shape"}]
    assert [(h["op"], h["is_deleted"], h["row"]) for h in history] == [
        ("INSERT", False, {"_id": OID, "c1": "baz", "tags": tags}),
        ("UPDATE", False, {"_id": OID, "c1": "sss"}),                 # replace: the whole document
        ("UPDATE", False, {"_id": OID, "c1": "aaa"}),                 # $set
        ("UPDATE", False, {"_id": OID, "column1": "aaa"}),            # $unset c1 removes the field
        ("DELETE", True, {"_id": OID, "column1": "aaa"}),
    ]
    assert gold_rows(built, "ljx.ljx") == {}


def test_every_shell_type_becomes_canonical_text(decoders):
    [row] = decoded(decoders, [message("INSERT", "insert", TYPED_VALUE, coll="typed")])
    assert (row["table_id"], row["row_key"]) == ("d.typed", key("64650cf67dc36a464e76e584"))
    assert row["after"] == TYPED_EXPECTED
    assert row["column_types"]["when"] == "date" and row["column_types"]["dec"] == "decimal"
    assert row["column_types"]["nested"] == "object" and row["column_types"]["bin"] == "binData"


def test_patches_equal_applying_them_in_python(built, patched):
    doc, patches = patched
    expected_after_first = reference_patch(doc, {})
    for ops in patches[:30]:  # ids 2..31 landed before the first build
        expected_after_first = reference_patch(expected_after_first, ops)
    final = doc
    for ops in patches:
        final = reference_patch(final, ops)
    as_row = lambda d: {k: mongo.canonical(v) for k, v in d.items()}  # noqa: E731
    assert FIRST_BUILD["patched"] == {key(OID): as_row(expected_after_first)}
    assert gold_rows(built, "d.docs") == {key(OID): as_row(final)}
    # the sequence used every kind of step
    steps = {(op, "." in path) for ops in patches for op, spec in ops.items() for path in spec}
    assert {("$set", False), ("$set", True), ("$unset", False), ("$unset", True), ("$inc", False)} <= steps


def test_a_late_replacement_gets_the_patch_that_landed_before_it(built):
    as_row = lambda d: {k: mongo.canonical(v) for k, v in d.items()}  # noqa: E731
    assert FIRST_BUILD["late"] == {key(LATE_ID.hex): as_row({**LATE_DOCS["inserted"], "b": 2})}
    # replaced (a: 9, b: 1) at 1700000002, then the patch of 1700000003 (b: 2)
    assert gold_rows(built, "d.late") == {key(LATE_ID.hex): as_row({**LATE_DOCS["replaced"], "b": 2})}


def test_patch_of_an_unknown_document_is_documented_behaviour(built):
    # no insert of _id 77 was ever seen: the document starts from _id and the patch
    assert gold_rows(built, "d.orphans") == {key("77"): {"_id": "77", "a": '{"b":1}', "c": "x"}}


def test_ddl_commands_are_ddl_events(built):
    rows = built.rows(
        """select ddl_text, ddl_dialect, ddl_action, ddl_object_kind, ddl_table_name, ddl_renamed_to, table_id
           from silver.cdc_ddl_events where topic = :t order by kafka_offset""", t=DDL)
    assert [(r["ddl_action"], r["ddl_object_kind"], r["ddl_table_name"], r["ddl_renamed_to"]) for r in rows] == [
        ("DROP", "COLLECTION", "old_coll", None), ("RENAME", "COLLECTION", "a", "d.b")]
    assert rows[0]["ddl_dialect"] == "mongodb" and rows[0]["table_id"] == "d.old_coll"


def test_bad_messages_are_rejects_with_reasons(decoders):
    rows = decoded(decoders, [m for m, _ in BAD_MESSAGES])
    assert [(r["record_kind"], r["reject_stage"], r["reject_reason"]) for r in rows] == [
        ("reject", "decode", reason) for _, reason in BAD_MESSAGES]
    # a reject keeps its message; a change does not (bronze has it)
    assert [r["message_value"] for r in rows] == [m for m, _ in BAD_MESSAGES]


@pytest.mark.parametrize("topic", [GEN_ORDER, GEN_DISORDER])
def test_generated_streams_fold_like_python(built, generated, topic):
    db = topic.replace("gen.mongo.", "gen_").replace("inorder", "order")
    expected = mongo.fold(db, generated[topic])
    actual = {(r["table_id"], r["row_key"]): r["row"] for r in built.rows(
        "select table_id, row_key, row from gold.cdc_current_rows where table_id like :p", p=f"{db}.%")}
    assert len(expected) > 150
    assert actual == expected
    assert built.rows("select count(*) as n from silver.cdc_rejects where topic = :t", t=topic)[0]["n"] == 0


def test_every_message_is_accounted_for(built):
    """Each distinct message (re-deliveries are duplicates) is decoded into exactly one place."""
    bronze = {r["topic"]: r["n"] for r in built.rows(
        "select topic, count(distinct named_struct('k', message_key, 'v', message_value)) as n "
        "from bronze.kafka_messages where array_contains(:topics, topic) group by topic", topics=TOPICS)}
    placed = {r["topic"]: r["n"] for r in built.rows(
        "select topic, count(distinct message_id) as n from silver.int_cdc__decoded "
        "where array_contains(:topics, topic) group by topic", topics=TOPICS)}
    assert bronze == placed
