"""Fuzzing of the Python UDFs (udfs/*.py, plain Python, no Spark): no input makes one raise.

Every UDF function gets arbitrary text, base64 of arbitrary bytes, text that is not base64,
truncated, bit-flipped and spliced copies of the valid inputs the example tests build,
deep nesting, huge numbers and 1 MB strings. It must return None or its declared type
(JSON text for the decoders, a dict for type_keys), bad input being the module's own
failure result (an `error` the SQL turns into a reject); text must be UTF-8 that Arrow
holds (no lone surrogates). Each Arrow UDF (udfs/arrow.py) gets arrays of fuzzed values
and must return an array of the UDF's result type with one row per input row.

The valid inputs are those of the example tests, imported from their modules (pytest puts
tests/ on sys.path). Hypothesis is derandomized (a fixed seed per test, no example
database), so every run and CI see the same examples.
"""

from __future__ import annotations

import base64
import binascii
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings, strategies as st

import synth
from renderers import drs_mongo_json, dts_avro as render_dts
from test_dataworks_examples import DDLMETA_B64, JAVA_STRING, TRUNCATED_DDLMETA
from test_ddl_parsing import CASES
from test_drs_avro_examples import (
    EVOLVED,
    EVOLVED_MESSAGES,
    EVOLVED_PATH,
    PROJECT,
    RAW_MESSAGES,
    REJECT_CASES,
    SINGLE_MESSAGES,
    datum,
    single_object,
)
from test_drs_mongo_examples import BAD_MESSAGES, OID, TYPED_VALUE
from test_dts_avro_examples import case_records
from udfs import arrow, ddl, ddlmeta, drs_avro, dts_avro, mongo, types

VECTORS = Path(__file__).resolve().parent / "vectors"
# derandomized: the same examples on every run; a few seconds in all
FUZZ = settings(max_examples=300, deadline=None, derandomize=True, database=None)
FEW = settings(FUZZ, max_examples=40)  # the series wrappers: several values per example
MB = 1_000_000


# ---------------------------------------------------------------------------- what a UDF may return


def check_text(result: Any, nullable: bool = True) -> dict[str, Any] | list[Any] | None:
    """A decoder's result: None (when allowed) or JSON text Arrow holds; its parsed value."""
    if result is None:
        assert nullable, "None where the UDF always returns text"
        return None
    assert isinstance(result, str), type(result)
    result.encode("utf-8")  # Arrow strings are UTF-8: a lone surrogate would fail the whole batch
    pa.array([result], pa.string())
    return json.loads(result)


def check_arrays(function: arrow.ArrowFunction, *columns: list[Any]) -> list[Any]:
    """A string-returning Arrow UDF: a string array of one row per input row; its values."""
    assert function.result == pa.string()
    out = function.over_arrays(*(pa.array(c, pa.string()) for c in columns))
    assert isinstance(out, pa.Array) and out.type == pa.string() and len(out) == len(columns[0])
    return out.to_pylist()


# ---------------------------------------------------------------------------- strategies


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _is_base64(text: str) -> bool:
    try:
        base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


# valid Unicode (hypothesis leaves out surrogates: Arrow strings cannot hold them), NUL included
any_text = st.text(st.characters(codec="utf-8"), max_size=300)
base64_of_bytes = st.binary(max_size=400).map(b64)
not_base64 = st.text(st.characters(codec="utf-8"), min_size=1, max_size=200).filter(lambda t: not _is_base64(t))


@st.composite
def mutated_bytes(draw: st.DrawFn, samples: list[bytes]) -> bytes:
    """A valid input truncated, with bits flipped, or with random bytes spliced in."""
    data = bytearray(draw(st.sampled_from(samples)))
    how = draw(st.sampled_from(["truncate", "flip", "splice"]))
    if how == "truncate":
        return bytes(data[:draw(st.integers(0, max(len(data) - 1, 0)))])
    if how == "flip" and data:
        for _ in range(draw(st.integers(1, 4))):
            data[draw(st.integers(0, len(data) - 1))] ^= 1 << draw(st.integers(0, 7))
        return bytes(data)
    at = draw(st.integers(0, len(data)))
    return bytes(data[:at]) + draw(st.binary(min_size=1, max_size=16)) + bytes(data[at:])


@st.composite
def mutated_text(draw: st.DrawFn, samples: list[str]) -> str:
    """A valid text truncated, with characters replaced, or with random text spliced in."""
    text = draw(st.sampled_from(samples))
    how = draw(st.sampled_from(["truncate", "replace", "splice"]))
    if how == "truncate":
        return text[:draw(st.integers(0, max(len(text) - 1, 0)))]
    chars = list(text)
    if how == "replace" and chars:
        for _ in range(draw(st.integers(1, 4))):
            chars[draw(st.integers(0, len(chars) - 1))] = draw(st.characters(codec="utf-8"))
        return "".join(chars)
    at = draw(st.integers(0, len(text)))
    return text[:at] + draw(st.text(st.characters(codec="utf-8"), min_size=1, max_size=8)) + text[at:]


def nested(opening: str, closing: str, depth: int, middle: str = "1") -> str:
    return opening * depth + middle + closing * depth


# deep nesting, huge numbers and long strings every text-reading UDF gets
EDGE_TEXTS = [
    "[" * 100_000, "{" * 100_000, "(" * 100_000, "{a:" * 50_000, '{"a":' * 50_000,
    nested("[", "]", 5_000), nested("{a: ", "}", 5_000), nested('{"a":', "}", 5_000), nested("(", ")", 5_000),
    "1e999999999", "-1E-999999999", "9" * 5_000, "0." + "0" * 5_000 + "1", "NaN", "-Infinity",
    "x" * MB, "\x00" * MB, "'" + "x" * MB, "😀" * (MB // 4),
    "a " * 50_000,  # many tokens: 100 kB (sqlglot reads a 1 MB statement in seconds)
]


# ---------------------------------------------------------------------------- DDL text (udfs/ddl.py)

DDL_TEXTS = [text for _, text, _ in CASES.values()]
DIALECT_NAMES = [None, *ddl.DIALECTS, "mongodb", "db2", ""]
DDL_EDGE = [
    *EDGE_TEXTS,
    "CREATE TABLE t (c decimal(99999999999999999999,2))", "CREATE TABLE t (c NUMBER(38,-3))",
    "ALTER TABLE t ADD (" + "c int, " * 1000 + "d int)", "RENAME TABLE " + "a TO b, " * 10_000,
    "EXEC sp_rename 'a.b.c', 'd', 'COLUMN'", "EXEC sp_rename " + "'a', " * 1000,
    '{"renameCollection": ' + nested("[", "]", 5_000) + "}", '{"create": "' + "x" * MB + '"}',
    '{"create": 1e999999999}', '{"create": "\\ud800"}', "{create: ISODate('0001-01-01T00:00:00+08:00')}",
]


def check_ddl(result: Any) -> None:
    parsed = check_text(result)
    assert isinstance(parsed, dict) and "error" in parsed and "action" in parsed


@FUZZ
@given(text=st.one_of(any_text, mutated_text(DDL_TEXTS)), dialect=st.sampled_from(DIALECT_NAMES))
def test_parse_ddl_never_raises(text: str, dialect: str | None) -> None:
    check_ddl(ddl.parse_ddl(text, dialect))


# every edge text as MySQL and as a MongoDB command, the shorter ones as Oracle too (sqlglot
# takes seconds for a 1 MB statement)
DDL_EDGE_CASES = [(t, d) for t in DDL_EDGE for d in ("mysql", "mongodb", "oracle")
                  if d != "oracle" or len(t) < 100_000]


@pytest.mark.parametrize("text, dialect", DDL_EDGE_CASES, ids=range(len(DDL_EDGE_CASES)))
def test_parse_ddl_edge_inputs(text: str, dialect: str) -> None:
    check_ddl(ddl.parse_ddl(text, dialect))


@FEW
@given(rows=st.lists(st.tuples(st.one_of(st.none(), any_text, mutated_text(DDL_TEXTS)),
                               st.sampled_from(DIALECT_NAMES)), min_size=1, max_size=5))
def test_parse_ddl_arrays(rows: list[tuple[str | None, str | None]]) -> None:
    out = check_arrays(ddl.parse_ddl_arrays, [t for t, _ in rows], [d for _, d in rows])
    assert [v is None for v in out] == [t is None for t, _ in rows]


# ---------------------------------------------------------------------------- ddlMeta (udfs/ddlmeta.py)

DDLMETA_BYTES = [base64.b64decode(DDLMETA_B64), base64.b64decode(JAVA_STRING), base64.b64decode(TRUNCATED_DDLMETA)]


def check_ddlmeta(result: Any) -> None:
    parsed = check_text(result, nullable=False)
    assert isinstance(parsed, dict) and "error" in parsed and isinstance(parsed["items"], list)


@FUZZ
@given(value=st.one_of(any_text, base64_of_bytes, not_base64, mutated_bytes(DDLMETA_BYTES).map(b64),
                       st.binary(max_size=300).map(lambda b: b64(b"\xac\xed\x00\x05" + b))))
def test_decode_ddlmeta_never_raises(value: str) -> None:
    check_ddlmeta(ddlmeta.decode_ddlmeta(value))


@pytest.mark.parametrize("value", [*EDGE_TEXTS, b64(b"\xac\xed\x00\x05" + b"\x00" * MB),
                                   b64(b"\xac\xed\x00\x05" + b"\x75\x72" * 1000), b64(bytes(range(256)) * 4000)],
                         ids=range(len(EDGE_TEXTS) + 3))
def test_decode_ddlmeta_edge_inputs(value: str) -> None:
    check_ddlmeta(ddlmeta.decode_ddlmeta(value))


@FEW
@given(values=st.lists(st.one_of(st.none(), base64_of_bytes, mutated_bytes(DDLMETA_BYTES).map(b64)),
                       min_size=1, max_size=5))
def test_decode_ddlmeta_arrays(values: list[str | None]) -> None:
    out = check_arrays(ddlmeta.decode_ddlmeta_arrays, values)
    assert [v is None for v in out] == [v is None for v in values]


# ---------------------------------------------------------------------------- DRS Avro (udfs/drs_avro.py)

DRS_SPEC = json.dumps(["package:Record.reconstructed.avsc", str(PROJECT / EVOLVED_PATH)])
DRS_BYTES = [
    *(single_object(m) for m in SINGLE_MESSAGES), *(datum(m, s) for m, s in RAW_MESSAGES),
    *(single_object(m, EVOLVED) for m in EVOLVED_MESSAGES),
    *(v for v, _ in REJECT_CASES if isinstance(v, bytes)),
]
DRS_SPECS = [None, "", DRS_SPEC, drs_avro.DEFAULT_SCHEMA, "[]", "[", "[1, null, {}]", '["/nonexistent.avsc"]',
             "[" * 100_000, nested("[", "]", 5_000, '"x"')]


def check_drs(result: Any) -> None:
    parsed = check_text(result, nullable=False)
    assert isinstance(parsed, dict) and "error" in parsed


@FUZZ
@given(value=st.one_of(st.none(), any_text, base64_of_bytes, not_base64, mutated_bytes(DRS_BYTES).map(b64)),
       spec=st.sampled_from([None, DRS_SPEC]))
def test_decode_drs_avro_never_raises(value: str | None, spec: str | None) -> None:
    check_drs(drs_avro.decode_drs_avro(value, spec))


@FEW
@given(spec=st.one_of(st.sampled_from(DRS_SPECS), any_text.map(lambda t: "[" + t), any_text))
def test_decode_drs_avro_any_schema_spec(spec: str) -> None:
    check_drs(drs_avro.decode_drs_avro(b64(DRS_BYTES[0]), spec))


@pytest.mark.parametrize("value", [*EDGE_TEXTS, b64(b"\xc3\x01" + b"\xff" * MB), b64(b"\x00" * MB)],
                         ids=range(len(EDGE_TEXTS) + 2))
def test_decode_drs_avro_edge_inputs(value: str) -> None:
    check_drs(drs_avro.decode_drs_avro(value, DRS_SPEC))


@FEW
@given(rows=st.lists(st.tuples(st.one_of(st.none(), base64_of_bytes, mutated_bytes(DRS_BYTES).map(b64)),
                               st.sampled_from(DRS_SPECS)), min_size=1, max_size=5))
def test_decode_drs_avro_arrays(rows: list[tuple[str | None, str | None]]) -> None:
    check_arrays(drs_avro.decode_drs_avro_arrays, [v for v, _ in rows], [s for _, s in rows])


# ---------------------------------------------------------------------------- DTS Avro (udfs/dts_avro.py)

DTS_BYTES = [v for values in case_records().values() for v in values if isinstance(v, bytes)]


def check_dts(result: Any) -> None:
    parsed = check_text(result)
    assert parsed is None or (isinstance(parsed, dict) and "error" in parsed)


@FUZZ
@given(value=st.one_of(any_text, base64_of_bytes, not_base64, mutated_bytes(DTS_BYTES).map(b64)))
def test_decode_dts_avro_never_raises(value: str) -> None:
    check_dts(dts_avro.decode_dts_avro(value))


@pytest.mark.parametrize("value", [*EDGE_TEXTS, b64(b"\x02" * MB), b64(b"\xff" * MB)],
                         ids=range(len(EDGE_TEXTS) + 2))
def test_decode_dts_avro_edge_inputs(value: str) -> None:
    check_dts(dts_avro.decode_dts_avro(value))


@pytest.mark.parametrize("branch, payload", [
    ("Decimal", {"value": "1E+999999999", "precision": 0, "scale": 0}),
    ("Decimal", {"value": "-1e-999999999", "precision": 0, "scale": 0}),
    ("Decimal", {"value": "9" * 5_000 + "e5", "precision": 0, "scale": 0}),
    ("Integer", {"precision": 0, "value": "9" * MB}),
    ("Timestamp", {"timestamp": 2**62, "millis": 2**31 - 1}),
    ("Timestamp", {"timestamp": -2**63, "millis": -2**31}),
    ("DateTime", {"year": 2**31 - 1, "month": 2**31 - 1, "day": -2**31, "hour": None, "minute": None,
                  "second": None, "millis": None}),
    ("DateTime", {"year": None, "month": None, "day": None, "hour": None, "minute": None, "second": None,
                  "millis": None}),
    ("TimestampWithTimeZone", {"value": {"year": 1, "month": 1, "day": 1, "hour": -2**31, "minute": 0,
                                         "second": 0, "millis": -2**31}, "timezone": "+99:99"}),
    ("Character", {"charset": "rot13", "value": b"abc"}),
    ("Character", {"charset": "idna", "value": b"." * 100}),
    ("Character", {"charset": "unicode_escape", "value": b"\\ud800"}),
    ("Character", {"charset": "utf16", "value": b"\xd8\x00"}),
    ("Float", {"value": 1e308, "precision": 0, "scale": 0}),
    ("TextObject", {"type": "JSON", "value": nested("[", "]", 5_000)}),
    ("BinaryObject", {"type": "JSON", "value": nested("[", "]", 5_000).encode()}),
    ("BinaryObject", {"type": "TEXT", "value": b"\xed\xa0\x80"}),
])
def test_decode_dts_avro_extreme_values(branch: str, payload: dict[str, Any]) -> None:
    rec = render_dts.record("INSERT", "a.b", [("x", 0)], None, [render_dts.value(branch, payload)])
    check_dts(dts_avro.decode_dts_avro(b64(render_dts.encode(rec))))


@FEW
@given(values=st.lists(st.one_of(st.none(), base64_of_bytes, mutated_bytes(DTS_BYTES).map(b64)),
                       min_size=1, max_size=5))
def test_decode_dts_avro_arrays(values: list[str | None]) -> None:
    out = check_arrays(dts_avro.decode_dts_avro_arrays, values)
    assert [v is None for v in out] == [v is None for v in values]


# ---------------------------------------------------------------------------- Mongo changes (udfs/mongo.py)

VENDOR_MONGO = [json.loads(line) for line in
                (VECTORS / "huawei_drs_json" / "dds_mongodb_ops.ndjson").read_text().splitlines()]
GENERATED_MONGO = [json.loads(r.value) for r in drs_mongo_json.render("d", drs_mongo_json.generate(60, seed=3), "t")]
MONGO_MESSAGES = [*VENDOR_MONGO, *GENERATED_MONGO, *(json.loads(m) for m, _ in BAD_MESSAGES if m.startswith("{"))]
MONGO_TEXTS = [TYPED_VALUE, *(m[k] for m in MONGO_MESSAGES for k in ("value", "where") if m.get(k))]
WHERE = f'{{"_id": ObjectId("{OID}")}}'
MONGO_EDGE = [
    *EDGE_TEXTS,
    "{_id: 1, a: 1e999999999}", "{_id: 1, a: -1e-999999999}", "{_id: 1, a: 01e999999999}", "{_id: 1, a: .5e-99999999}",
    '{_id: 1, a: NumberDecimal("1e999999999")}', '{_id: 1, a: NumberDecimal("sNaN")}',
    '{_id: 1, a: NumberLong("1e999999999")}', "{_id: 1, a: new Date(1e999999999)}", "{_id: 1, a: new Date(1e20)}",
    "{_id: 1, a: new Date(-62135596800001)}", '{_id: 1, a: ISODate("0001-01-01T00:00:00+08:00")}',
    '{_id: 1, a: ISODate("9999-12-31T23:59:59-08:00")}', '{_id: 1, a: BinData(1e999999999, "AA==")}',
    '{_id: 1, a: BinData(-1, "AA==")}', '{_id: 1, a: BinData(256, "AA==")}', "{_id: 1, a: Timestamp(1e999999999, 1)}",
    '{_id: 1, a: {"$binary": 5}}', '{_id: 1, a: {"$binary": {}}}', '{_id: 1, a: {"$binary": "x"}}',
    '{_id: 1, a: {"$oid": [1]}}', '{_id: 1, a: {"$numberDecimal": "1e999999999"}}', '{_id: 1, a: {$date: {}}}',
    '{_id: 1, a: "\\ud83d\\ude00"}', '{_id: 1, a: "\\ud800"}', '{_id: 1, a: "\\udc00\\ud800"}', '{_id: "\\ud800"}',
    "{_id: 1, a: [" + "/a/," * 100_000 + "]}", "{_id: 1, a: [" + "1," * 400_000 + "]}",
    nested("{_id: 1, a: ", "}", 99), nested("{_id: 1, a: ", "}", 150), nested("{_id: 1, a: [", "]}", 400),
    '{$set: {"a.99999999999999": 1}}', '{$set: {"' + "a." * 100_000 + 'b": 1}}',
    '{$rename: {a: "' + "b." * 1000 + '"}}',
]


def check_change(result: Any) -> None:
    assert isinstance(result, dict)
    assert set(result) == {"kind", "document", "fields", "types", "id", "error"}
    check_text(json.dumps(result, ensure_ascii=False), nullable=False)  # as decode_change_arrays returns it


@FUZZ
@given(value=st.one_of(st.none(), any_text, mutated_text(MONGO_TEXTS)),
       where=st.one_of(st.none(), st.just(WHERE), any_text, mutated_text(MONGO_TEXTS)))
def test_decode_change_never_raises(value: str | None, where: str | None) -> None:
    check_change(mongo.decode_change(value, where))


@pytest.mark.parametrize("value", MONGO_EDGE, ids=range(len(MONGO_EDGE)))
def test_decode_change_edge_inputs(value: str) -> None:
    check_change(mongo.decode_change(value, WHERE))
    if len(value) < 100_000:
        check_change(mongo.decode_change("{a: 1}", value))


@FEW
@given(rows=st.lists(st.tuples(st.one_of(st.none(), any_text, mutated_text(MONGO_TEXTS)),
                               st.one_of(st.none(), st.just(WHERE), mutated_text(MONGO_TEXTS))),
                     min_size=1, max_size=5))
def test_decode_change_arrays(rows: list[tuple[str | None, str | None]]) -> None:
    check_arrays(mongo.decode_change_arrays, [v for v, _ in rows], [w for _, w in rows])


# ---------------------------------------------------------------------------- Mongo fold (udfs/mongo.py)


def _events(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events gold sends cdc_fold_documents for the messages (as cdc_row_history builds them)."""
    events = []
    for message in messages:
        change = mongo.decode_change(message.get("value"), message.get("where"))
        if message.get("op") == "DELETE":
            events.append({"action": "delete", "document": None, "image": None})
        elif change["error"] is None:
            action = "patch" if change["kind"] == "operators" else "upsert"
            events.append({"action": action, "document": change["document"], "image": change["fields"]})
    return events


EVENT_TEXTS = [json.dumps(_events(GENERATED_MONGO[i:i + 12])) for i in range(0, len(GENERATED_MONGO), 12)]
EVENT_TEXTS.append(json.dumps(_events(VENDOR_MONGO)))

json_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), any_text,
                         st.sampled_from([1e308, -0.0, 10**40]))
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(any_text, inner, max_size=4)), max_leaves=12)
paths = st.one_of(st.sampled_from(["a", "a.b", "a.0", "a.1.b", "tags.3", "a.99999999999999", "a.²", "a.٣", "_id",
                                   "a." + "0." * 200 + "b", ""]), any_text)
numbers = st.one_of(st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                    st.sampled_from([{"$numberDecimal": t} for t in ("1.5", "NaN", "sNaN", "-Infinity", "1e999999999",
                                                                       "x")]))
operands = st.one_of(json_values, numbers, st.fixed_dictionaries({"$each": json_values}))
operators = st.dictionaries(st.sampled_from([*mongo.OPERATORS, "$pull", "a"]),
                            st.one_of(st.dictionaries(paths, operands, max_size=3), json_values), max_size=3)
documents = st.dictionaries(any_text, json_values, max_size=5).map(lambda d: {"_id": 1, **d})
events = st.lists(st.one_of(
    st.builds(lambda d: {"action": "upsert", "document": json.dumps(d), "image": None}, documents),
    st.builds(lambda o: {"action": "patch", "document": json.dumps({"_id": 1, **o}), "image": None}, operators),
    st.builds(lambda i, a: {"action": a, "document": None, "image": i},
              st.dictionaries(any_text, st.one_of(st.none(), any_text), max_size=3),
              st.sampled_from(["merge", "upsert", "delete", "truncate", None, "x"])),
    st.fixed_dictionaries({"action": json_values, "document": json_values, "image": json_values}),
    json_values,
), max_size=6)
FOLD_EDGE = [
    *EDGE_TEXTS, "[]", "{}", "[null]", "[1]", '[{"action": "patch", "document": "{}"}]',
    '[{"action": "patch", "document": "[]"}]', '[{"action": "upsert", "document": "1"}]',
    '[{"action": "upsert", "document": "{\\"a\\": \\"\\\\ud800\\"}"}]',
    json.dumps([{"action": "upsert", "document": nested('{"a":', "}", 5_000)}]),
    json.dumps([{"action": "upsert", "document": nested('{"a":', "}", 400)}]),
    json.dumps([{"action": "upsert", "document": '{"_id": 1, "a": []}'},
                {"action": "patch", "document": '{"_id": 1, "$set": {"a.99999999999": 1}}'}]),
    json.dumps([{"action": "upsert", "document": '{"_id": 1, "a": 1e999999}'},
                {"action": "patch", "document": '{"_id": 1, "$mul": {"a": 1e999999}}'}]),
    json.dumps([{"action": "upsert", "document": '{"_id": 1, "a": 1e999999999}'}]),
    json.dumps([{"action": "patch", "document": '{"_id": 1, "$inc": {"a": {"$numberDecimal": "1e999999999"}}}'}]),
]


def check_fold(result: Any) -> None:
    parsed = check_text(result)
    assert parsed is None or isinstance(parsed, list)


@FUZZ
@given(text=st.one_of(any_text, mutated_text(EVENT_TEXTS), events.map(json.dumps)))
def test_fold_documents_never_raises(text: str) -> None:
    (result,) = check_arrays(mongo.fold_documents_arrays, [text])
    check_fold(result)


@pytest.mark.parametrize("text", FOLD_EDGE, ids=range(len(FOLD_EDGE)))
def test_fold_documents_edge_inputs(text: str) -> None:
    (result,) = check_arrays(mongo.fold_documents_arrays, [text])
    check_fold(result)


@FEW
@given(texts=st.lists(st.one_of(st.none(), mutated_text(EVENT_TEXTS), events.map(json.dumps)), min_size=1, max_size=5))
def test_fold_documents_arrays(texts: list[str | None]) -> None:
    out = check_arrays(mongo.fold_documents_arrays, texts)
    assert all(v is None for v, t in zip(out, texts, strict=True) if t is None)


# ---------------------------------------------------------------------------- type keys (udfs/types.py)

SYSTEMS = [*types.SQL_DIALECTS, *types.SYSTEM_ALIASES, "connect", "dts", "datahub", "bson", "unknown", ""]
TYPE_TEXTS = ["int(11) unsigned zerofill", "DECIMAL(8, 0) unsigned", "enum('a,b','c')", "NUMBER(10,2)",
              "VARCHAR2(50 BYTE)", "timestamp(6) with time zone", "datetime2(7)",
              "int64 io.debezium.time.MicroTimestamp", "252 Character:utf8mb4", "DECIMAL(17,4)", "null",
              "15 EmptyObject:NULL", "VOID", "array<struct<a:int>>"]
TYPE_PARAMETERS = [
    "decimal(99999999999999999999,2)", "decimal(2,99999999999999999999)", "decimal(2,-99999999999999)",
    "number(38,-3)", "decimal(0,0)", "decimal(2147483647,-2147483648)", "decimal(2147483648,2)",
    "decimal(" + "9" * 5_000 + ")", "decimal(" + "0" * 5_000 + "5,2)", "number(" + "9" * MB + ")", "decimal(٣,٢)",
    "decimal(" * 100_000, "int" + "(" * 100_000, "decimal(10,2" + ")" * 100_000,
]
TYPE_EDGE = [*EDGE_TEXTS, *TYPE_PARAMETERS]


def check_type_keys(result: Any) -> None:
    if result is None:
        return
    assert isinstance(result, dict) and set(result) == {"keys", "precision", "scale", "is_null_value"}
    assert isinstance(result["keys"], list) and all(isinstance(k, str) for k in result["keys"])
    for number in (result["precision"], result["scale"]):
        assert number is None or (isinstance(number, int) and -2**31 <= number < 2**31)


def check_type_keys_arrays(systems: list[str | None], vendor_types: list[str | None]) -> None:
    out = types.type_keys_arrays.over_arrays(pa.array(systems, pa.string()), pa.array(vendor_types, pa.string()))
    assert out.type == types.type_keys_arrays.result == pa.struct(
        [("keys", pa.list_(pa.string())), ("precision", pa.int32()), ("scale", pa.int32()),
         ("is_null_value", pa.bool_())])
    assert len(out) == len(systems) and out.null_count == 0  # a type without keys: a row of NULLs


@FUZZ
@given(system=st.one_of(st.none(), st.sampled_from(SYSTEMS), any_text),
       vendor_type=st.one_of(st.none(), any_text, mutated_text(TYPE_TEXTS),
                             st.builds("{}({},{})".format, st.sampled_from(["decimal", "number", "varchar"]),
                                       st.integers(-2**70, 2**70), st.integers(-2**70, 2**70))))
def test_type_keys_never_raises(system: str | None, vendor_type: str | None) -> None:
    check_type_keys(types.type_keys(system, vendor_type))


# SQL type systems ask sqlglot: Oracle only for the shorter texts
TYPE_EDGE_CASES = [(s, t) for t in TYPE_EDGE for s in ("mysql", "dts", "datahub", "oracle")
                   if s != "oracle" or len(t) < 100_000]


@pytest.mark.parametrize("system, vendor_type", TYPE_EDGE_CASES, ids=range(len(TYPE_EDGE_CASES)))
def test_type_keys_edge_inputs(system: str, vendor_type: str) -> None:
    check_type_keys(types.type_keys(system, vendor_type))


@pytest.mark.parametrize(("vendor_type", "precision", "scale"), [
    ("decimal(99999999999999999999,2)", 2147483647, 2), ("decimal(10,99999999999999999999)", 10, 2147483647),
    ("number(38,-3)", 38, -3), ("decimal(0,0)", 0, 0), ("decimal(2147483647,-2147483648)", 2147483647, -2147483648),
    ("decimal(2147483648,-2147483649)", 2147483647, -2147483648), ("decimal(" + "0" * 5_000 + "5,2)", 5, 2),
])
def test_type_keys_precision_and_scale_fit_int32(vendor_type: str, precision: int | None, scale: int | None) -> None:
    """A precision or scale beyond the int32 result is held to its range (far too many digits
    for a Spark decimal: the column stays exact text)."""
    found = types.type_keys("oracle", vendor_type)
    assert found is not None and (found["precision"], found["scale"]) == (precision, scale)
    check_type_keys_arrays(["oracle"], [vendor_type])


@FEW
@given(rows=st.lists(st.tuples(st.one_of(st.none(), st.sampled_from(SYSTEMS)),
                               st.one_of(st.none(), any_text,
                                         st.sampled_from([t for t in TYPE_PARAMETERS if len(t) < MB]),
                                         mutated_text(TYPE_TEXTS))),
                     min_size=1, max_size=5))
def test_type_keys_arrays(rows: list[tuple[str | None, str | None]]) -> None:
    check_type_keys_arrays([s for s, _ in rows], [t for _, t in rows])


def test_type_keys_arrays_of_synth_types() -> None:
    vendor_types = [t for table in synth.COLUMNS.values() for t in table.values()]
    check_type_keys_arrays(["mysql"] * len(vendor_types), vendor_types)


# ---------------------------------------------------------------------------- the valid inputs are valid


def test_the_inputs_the_mutations_start_from_are_read() -> None:
    """Mutations start from real inputs: each UDF reads them (else the fuzzing above proves little)."""
    assert json.loads(ddlmeta.decode_ddlmeta(DDLMETA_B64))["error"] is None
    assert all(json.loads(drs_avro.decode_drs_avro(b64(v), DRS_SPEC))["error"] is None for v in DRS_BYTES[:10])
    assert all(json.loads(dts_avro.decode_dts_avro(b64(v)))["error"] is None for v in DTS_BYTES[:10])
    assert all(mongo.decode_change(m["value"], m["where"])["error"] is None for m in GENERATED_MONGO)
    assert all(json.loads(ddl.parse_ddl(t, d))["action"] != "UNKNOWN" for d, t, _ in list(CASES.values())[:20])
    for text in EVENT_TEXTS:
        (result,) = check_arrays(mongo.fold_documents_arrays, [text])
        assert isinstance(json.loads(result), list)
