"""Huawei DRS Avro (drs_avro): the UDF that reads the binary values (pure Python, fast) and
the decoder in one build.

Huawei's schema is not public and neither the vendor document (drs_03_0052: "see record.rar")
nor the vectors hold a DRS Avro message, so every message here is written with fastavro from
the RECONSTRUCTED schema the project ships (udfs/schemas/drs_avro/Record.reconstructed.avsc)
or from a second, evolved test schema (tests/data/drs_avro/Record.evolved.avsc: typed value
records, updateTimestamp as timestamp-millis, a trailing `sql` field), in Avro single-object
framing (C3 01 + CRC-64-AVRO fingerprint, what Huawei's sample decoder reads) and as raw
datums. The build configures both schemas (the evolved one by a path relative to the dbt
project) and primary keys for the tables whose key tests need one (the format names none).
Times are epoch milliseconds rendered in UTC.
"""

from __future__ import annotations

import base64
import io
import json
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from fastavro import schemaless_writer
from fastavro.schema import parse_schema

import synth
from renderers import drs_avro as renderer
from udfs import drs_avro

if TYPE_CHECKING:
    from cdclake.lake import Lake

Row = dict[str, Any]

PROJECT = Path(__file__).resolve().parents[2]
EVOLVED_PATH = "tests/data/drs_avro/Record.evolved.avsc"  # relative: resolved against the dbt project
RECONSTRUCTED = drs_avro.load_schema(drs_avro.DEFAULT_SCHEMA)
EVOLVED = drs_avro.load_schema(str(PROJECT / EVOLVED_PATH))
# a schema nobody configured (standing for Huawei's real one): its messages are rejects
_FOREIGN = parse_schema({
    "type": "record", "name": "Record", "namespace": "com.huawei.hwclouds.drs.avro",
    "fields": [{"name": "operation", "type": "string"}, {"name": "tableName", "type": "string"}]})
FOREIGN = drs_avro.WriterSchema("foreign", _FOREIGN, drs_avro.fingerprint(_FOREIGN))

SINGLE = "ex.drs-avro.single-object"
RAW = "ex.drs-avro.raw"
EVOLVED_TOPIC = "ex.drs-avro.evolved"
REJECTS = "ex.drs-avro.rejects"
STREAM = "gen.drs_avro"
SYNTH_DB = "drs_avro_stream"

KEYS = {"hr.emp": ["ID"], **renderer.primary_keys(SYNTH_DB)}
EXAMPLE_VARS = {"cdc_primary_keys": KEYS,
                "cdc_drs_avro_schemas": ["package:Record.reconstructed.avsc", EVOLVED_PATH]}

T0 = 1_624_614_713_201  # 2021-06-25T09:51:53.201Z
EMP = [("ID", "NUMBER"), ("NAME", "VARCHAR2"), ("NOTE", "CLOB")]
LOG = [("MSG", "VARCHAR2"), ("LEVEL", "NUMBER")]
UNICODE = "华为云 Ωmega naïve 🚀 \"q\" back\\slash"


# ---------------------------------------------------------------------------- writing messages


def message(operation: str, table: str, columns: list[tuple[str, str]] | None, before: list[Any] | None = None,
            after: list[Any] | None = None, seqno: int = 1, ts: int = T0, **extra: Any) -> dict[str, Any]:
    """A DRS Avro record: image values as given (None -> a null element; a dict is a value
    record as it stands, else {"value": v})."""
    def image(values: list[Any] | None) -> list[Any] | None:
        if values is None:
            return None
        return [None if v is None else v if isinstance(v, dict) else {"value": v} for v in values]

    return {"version": "1.0", "seqno": seqno, "shardId": "0", "eventid": f"e{seqno}", "updateTimestamp": ts,
            "tableName": table, "operation": operation,
            "columnCount": len(columns) if columns is not None else 0,
            "fields": None if columns is None else [{"name": n, "type": t} for n, t in columns],
            "beforeImages": image(before), "afterImages": image(after), **extra}


def datum(record: dict[str, Any], schema: drs_avro.WriterSchema) -> bytes:
    out = io.BytesIO()
    schemaless_writer(out, schema.parsed, record)
    return out.getvalue()


def single_object(record: dict[str, Any], schema: drs_avro.WriterSchema = RECONSTRUCTED) -> bytes:
    return drs_avro.MARKER + bytes.fromhex(schema.fingerprint) + datum(record, schema)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def decoded(data: bytes, *schemas: drs_avro.WriterSchema) -> dict[str, Any]:
    return json.loads(drs_avro.decode(data, list(schemas or [RECONSTRUCTED])))


def rabin64(data: bytes) -> int:
    """CRC-64-AVRO exactly as the Avro specification's reference code ("Schema Fingerprints")."""
    empty = 0xC15D213AA4D7A795
    table = []
    for i in range(256):
        fp = i
        for _ in range(8):
            fp = (fp >> 1) ^ (empty & -(fp & 1))
        table.append(fp)
    fp = empty
    for byte in data:
        fp = (fp >> 8) ^ table[(fp ^ byte) & 0xFF]
    return fp


def typed(record: str, value: Any) -> dict[str, Any]:
    """An image element of the evolved schema: its value record `record` (a union branch)."""
    return {"-type": "com.huawei.hwclouds.drs.avro." + record, "value": value}


# the typed values of the evolved schema and their canonical text
TYPED_COLUMNS = [("k", "bigint"), ("big", "bigint"), ("amount", "decimal(38,10)"), ("ratio", "double"),
                 ("tiny", "double"), ("flag", "boolean"), ("raw", "varbinary"), ("day", "date"),
                 ("at", "timestamp"), ("attrs", "json"), ("name", "varchar"), ("gone", "varchar")]
TYPED_VALUES = [
    typed("LongValue", 7),
    typed("LongValue", 9223372036854775807),
    typed("DecimalValue", Decimal("-12345678901234567890123456.1234567890")),
    typed("DoubleValue", 12510357.0),
    typed("DoubleValue", 1e-05),
    typed("BooleanValue", True),
    typed("BytesValue", b"\x00\xff\x10"),
    typed("DateValue", date(2024, 2, 29)),
    typed("TimestampValue", datetime(2021, 6, 25, 9, 51, 53, 201000, tzinfo=UTC)),
    typed("MapValue", {"a": "x", "n": 12, "z": None}),
    typed("ColumnValue", UNICODE),
    None,
]
TYPED_TEXT = {"k": "7", "big": "9223372036854775807", "amount": "-12345678901234567890123456.1234567890",
              "ratio": "12510357", "tiny": "0.00001", "flag": "true", "raw": "AP8Q", "day": "2024-02-29",
              "at": "2021-06-25T09:51:53.201Z", "attrs": '{"a":"x","n":12,"z":null}', "name": UNICODE,
              "gone": None}


# ---------------------------------------------------------------------------- UDF (pure Python)


@pytest.mark.parametrize(("schema", "value"), [
    # the Avro specification's test vectors (share/test/data/schema-tests.txt), as signed longs
    ('"null"', 7195948357588979594),
    ('"boolean"', -6970731678124411036),
    ('{"name":"foo","type":"fixed","size":15}', 1756455273707447556),
    ('"int"', 0x7275D51A3F395C8F),
])
def test_fingerprint_is_crc_64_avro_of_the_spec(schema, value):
    """The header fingerprint is the 64-bit Rabin value, little-endian (Java's
    SchemaNormalization.parsingFingerprint("CRC-64-AVRO")), as in the spec's examples."""
    expected = struct.pack("<q" if value < 0 else "<Q", value).hex()
    assert drs_avro.fingerprint(parse_schema(json.loads(schema))) == expected
    assert struct.pack("<Q", rabin64(schema.encode())).hex() == expected


def test_fingerprint_of_the_shipped_schema_is_the_spec_algorithm_on_its_canonical_form():
    from fastavro.schema import to_parsing_canonical_form

    canonical_form = to_parsing_canonical_form(RECONSTRUCTED.parsed)
    assert canonical_form.startswith('{"name":"com.huawei.hwclouds.drs.avro.Record","type":"record"')
    assert RECONSTRUCTED.fingerprint == struct.pack("<Q", rabin64(canonical_form.encode())).hex()
    assert RECONSTRUCTED.fingerprint != EVOLVED.fingerprint


def test_the_shipped_schema_is_marked_reconstructed_and_found_in_the_package():
    path = drs_avro.resolve_path(drs_avro.DEFAULT_SCHEMA)
    assert path == Path(drs_avro.__file__).resolve().parent / "schemas" / "drs_avro" / "Record.reconstructed.avsc"
    schema = json.loads(path.read_text(encoding="utf-8"))
    assert schema["doc"].startswith("RECONSTRUCTED") and schema["namespace"] == "com.huawei.hwclouds.drs.avro"
    assert [f["name"] for f in schema["fields"]] == [
        "version", "seqno", "shardId", "eventid", "updateTimestamp", "tableName", "operation", "columnCount",
        "fields", "beforeImages", "afterImages"]
    assert drs_avro.schema_list(None) == drs_avro.schema_list("") == drs_avro.schema_list("[]") == [
        "package:Record.reconstructed.avsc"]


def test_single_object_and_raw_datum_decode_the_same():
    record = message("UPDATE", '"HR"."EMP"', EMP, ["1", UNICODE, None], ["1", "x", {"value": None}], seqno=42)
    single, raw = decoded(single_object(record)), decoded(datum(record, RECONSTRUCTED))
    assert single == {
        "framing": "single-object", "fingerprint": RECONSTRUCTED.fingerprint, "schema": drs_avro.DEFAULT_SCHEMA,
        "version": "1.0", "seqno": "42", "shardId": "0", "eventid": "e42", "updateTimestamp": str(T0),
        "eventMs": T0, "tableName": '"HR"."EMP"', "operation": "UPDATE", "columnCount": "3",
        "fields": ["ID", "NAME", "NOTE"], "types": ["NUMBER", "VARCHAR2", "CLOB"],
        "before": ["1", UNICODE, None], "after": ["1", "x", None], "ddl": None, "error": None}
    assert raw == {**single, "framing": "raw"}


def test_typed_values_render_from_what_the_schema_says():
    record = message("INSERT", "shop.typed", TYPED_COLUMNS, after=TYPED_VALUES,
                     ts=datetime(2021, 6, 25, 9, 51, 53, 201000, tzinfo=UTC), sql=None)
    out = decoded(single_object(record, EVOLVED), RECONSTRUCTED, EVOLVED)
    assert out["schema"] == EVOLVED.path and out["eventMs"] == T0
    assert out["updateTimestamp"] == "2021-06-25T09:51:53.201Z"
    assert dict(zip(out["fields"], out["after"], strict=True)) == TYPED_TEXT


@pytest.mark.parametrize(("value", "text"), [
    (None, None), ("", ""), (True, "true"), (False, "false"), (-5, "-5"), (0.1, "0.1"), (3.0, "3"), (-0.0, "0"),
    (1e22, "10000000000000000000000"),
    (-1.5e-7, "-0.00000015"), (float("nan"), "NaN"), (float("-inf"), "-Infinity"), (Decimal("1.10"), "1.10"),
    (Decimal("0E-10"), "0.0000000000"), (b"", ""), (bytearray(b"\xff"), "/w=="),
    (datetime(2024, 1, 1, 8, 0, tzinfo=UTC), "2024-01-01T08:00:00Z"),
    (datetime(2024, 1, 1, 8, 0, 0, 120), "2024-01-01T08:00:00.00012"), (date(1, 1, 1), "0001-01-01"),
    ({"r": [1, b"\x01", Decimal("2.50")], "d": date(2024, 1, 2)}, '{"r":[1,"AQ==",2.50],"d":"2024-01-02"}'),
])
def test_canonical_text_of_each_avro_value(value, text):
    assert drs_avro.canonical(value) == text


def test_raw_datum_takes_the_first_schema_that_consumes_every_byte():
    """An evolved datum with only string values reads under the reconstructed schema too,
    but leaves its trailing `sql` byte: the evolved schema is taken."""
    record = message("INSERT", "avro_shop.items", [("id", "int")], after=[typed("ColumnValue", "1")],
                     ts=datetime.fromtimestamp(T0 / 1000, UTC), sql=None)
    out = decoded(datum(record, EVOLVED), RECONSTRUCTED, EVOLVED)
    assert (out["framing"], out["schema"], out["after"]) == ("raw", EVOLVED.path, ["1"])


@pytest.mark.parametrize(("data", "reason"), [
    (single_object(message("INSERT", "t", [("a", "int")], after=["1"]), FOREIGN),
     f"writer schema fingerprint {FOREIGN.fingerprint} matches no configured schema "
     f"(package:Record.reconstructed.avsc = {RECONSTRUCTED.fingerprint})"),
    (single_object(message("INSERT", "t", [("a", "int")], after=["1"]))[:-2],
     "datum truncated (EOFError: "),
    (b"\xc3\x01\x05\x25", "Avro single-object header truncated (4 bytes, needs 10)"),
    (single_object(message("INSERT", "t", [("a", "int")], after=["1"])) + b"\x00", "1 bytes left after the datum"),
    (b"\x01\x02\x03", "not Avro single-object encoding (starts with 0102, not c301) and no configured schema "
                      "reads it as one raw datum: package:Record.reconstructed.avsc: datum "),
    (b"", "not Avro single-object encoding (starts with nothing"),
])
def test_what_the_udf_cannot_read_is_an_error_saying_why(data, reason):
    assert reason in decoded(data)["error"]


def test_bad_input_and_unreadable_schema_files_are_errors_not_exceptions(tmp_path):
    good = b64(single_object(message("INSERT", "t", [("a", "int")], after=["1"])))
    assert json.loads(drs_avro.decode_drs_avro("not base64!", None))["error"].startswith("value is not base64")
    assert json.loads(drs_avro.decode_drs_avro(None, None)) == {"error": "value is empty"}
    missing = str(tmp_path / "missing.avsc")
    error = json.loads(drs_avro.decode_drs_avro(good, json.dumps([drs_avro.DEFAULT_SCHEMA, missing])))["error"]
    assert error.startswith(f"schema file {missing} ({missing}) cannot be read: FileNotFoundError")
    for name, text, problem in (
        ("unknown-type.avsc", '{"type": "record", "name": "X", "fields": [{"name": "a", "type": "nosuch"}]}',
         "UnknownType"),
        ("not-json.avsc", "{", "JSONDecodeError"),
    ):
        (tmp_path / name).write_text(text, encoding="utf-8")
        error = json.loads(drs_avro.decode_drs_avro(good, json.dumps([str(tmp_path / name)])))["error"]
        assert error.startswith(f"schema file {tmp_path / name} (") and f"cannot be read: {problem}" in error
    assert json.loads(drs_avro.decode_drs_avro(good, '["package:Record.reconstructed.avsc"]'))["after"] == ["1"]


# ---------------------------------------------------------------------------- the build


def emp(id_: str, name: str | None, note: str | None) -> list[str | None]:
    return [id_, name, note]


SINGLE_MESSAGES = [
    message("INSERT", '"HR"."EMP"', EMP, after=emp("1", UNICODE, None), seqno=101, ts=T0),
    message("UPDATE", '"HR"."EMP"', EMP, emp("1", UNICODE, None), emp("1", "O'Brien", "line\nbreak"),
            seqno=102, ts=T0 + 1000),
    message("INSERT", '"HR"."EMP"', EMP, after=emp("2", "two", None), seqno=103, ts=T0 + 2000),
    message("DELETE", '"HR"."EMP"', EMP, before=emp("2", "two", None), seqno=104, ts=T0 + 3000),
    message("INIT", '"HR"."EMP"', EMP, after=emp("3", None, "snap"), seqno=105, ts=T0 + 4000),
    message("UPDATE", '"HR"."EMP"', EMP, emp("1", "O'Brien", "line\nbreak"), emp("4", "O'Brien", "line\nbreak"),
            seqno=106, ts=T0 + 5000),
    message("DDL", '"HR"."EMP"', [], after=['CREATE TABLE "HR"."EMP2" ("ID" NUMBER PRIMARY KEY)'], seqno=107,
            ts=T0 + 6000),
    message("HEARTBEAT", '"HR"."EMP"', None, seqno=108, ts=T0 + 7000),
    message("INSERT", '"HR"."LOG"', LOG, after=["gone", "1"], seqno=109, ts=T0 + 8000),
    message("DDL", '"HR"."LOG"', [], after=['TRUNCATE TABLE "HR"."LOG"'], seqno=110, ts=T0 + 9000),
    message("INSERT", '"HR"."LOG"', LOG, after=["same", "2"], seqno=111, ts=T0 + 10000),
    message("INSERT", '"HR"."LOG"', LOG, after=["same", "2"], seqno=112, ts=T0 + 11000),
    message("INSERT", '"HR"."LOG"', LOG, after=[None, "3"], seqno=113, ts=T0 + 12000),
    message("DELETE", '"HR"."LOG"', LOG, before=[None, "3"], seqno=114, ts=T0 + 13000),
]
RAW_MESSAGES = [
    (message("INSERT", "avro_shop.items", [("id", "int"), ("name", "varchar")], after=["1", "raw reconstructed"],
             seqno=201), RECONSTRUCTED),
    (message("INSERT", "avro_shop.items", [("id", "int"), ("name", "varchar")],
             after=[typed("LongValue", 2), typed("ColumnValue", "raw evolved")],
             seqno=202, ts=datetime.fromtimestamp(T0 / 1000, UTC), sql=None), EVOLVED),
]
EVOLVED_MESSAGES = [
    message("INSERT", "shop.typed", TYPED_COLUMNS, after=TYPED_VALUES, seqno=301,
            ts=datetime(2021, 6, 25, 9, 51, 53, 201000, tzinfo=UTC), sql=None),
    message("DDL", "shop.typed", None, seqno=302, ts=datetime(2021, 6, 25, 9, 52, tzinfo=UTC),
            sql="ALTER TABLE shop.typed ADD COLUMN extra varchar(8)"),
]
_ONE = message("INSERT", "shop.bad", [("a", "int"), ("b", "int")], after=["1", "2"], seqno=401)
REJECT_CASES: list[tuple[bytes | str, str]] = [
    (single_object(_ONE, FOREIGN),
     f"writer schema fingerprint {FOREIGN.fingerprint} matches no configured schema "
     f"(package:Record.reconstructed.avsc = {RECONSTRUCTED.fingerprint}, "
     f"{PROJECT / EVOLVED_PATH} = {EVOLVED.fingerprint})"),
    (single_object(_ONE)[:-3], "datum truncated (EOFError: "),
    (b"\xc3\x01\x00\x01\x02", "Avro single-object header truncated (5 bytes, needs 10)"),
    (single_object({**_ONE, "afterImages": [{"value": "1"}]}), '"afterImages" has 1 values for 2 "fields"'),
    (single_object({**_ONE, "columnCount": 3}), '"columnCount" is 3 but "fields" has 2 columns'),
    (single_object(message("DELETE", "shop.bad", [("a", "int")], seqno=402)), 'DELETE without "beforeImages"'),
    (single_object(message("UPDATE", "shop.bad", [("a", "int"), ("a", "int")], ["1", "1"], ["2", "2"])),
     '"fields" names a column twice: a, a'),
    (single_object(message("INSERT", '"HR"."EMP"', [("NAME", "VARCHAR2")], after=["no id"])),
     "the configured primary key column(s) ID (var cdc_primary_keys) are not all among the \"fields\""),
    (single_object(message("DDL", "shop.bad", [], after=[None])),
     "DDL message without a statement (no \"sql\"/\"ddl\" field, no text in \"afterImages\")"),
    (b"\x01\x02\x03", "not Avro single-object encoding (starts with 0102, not c301) and no configured schema"),
    ("not base64!", "value is not base64"),
]


@dataclass(frozen=True)
class Built:
    lake: Lake
    stream: synth.Stream


def write(path: Path, records: list[synth.Record]) -> Path:
    synth.write_records(path, records)
    return path


def binary_records(topic: str, values: list[bytes]) -> list[synth.Record]:
    return [synth.Record.of_bytes(topic, 0, i, T0 + i, v, key="k") for i, v in enumerate(values)]


def land_examples(lake: Lake, tmp: Path) -> Iterator[None]:
    """One batch (tests/examples/conftest.py)."""
    stream = synth.generate(SYNTH_DB, n_changes=300)
    # routed by shape: base64 values starting with C3 01 are drs_avro
    lake.land([write(tmp / "single.jsonl", binary_records(SINGLE, [single_object(m) for m in SINGLE_MESSAGES])),
               write(tmp / "evolved.jsonl", binary_records(
                   EVOLVED_TOPIC, [single_object(m, EVOLVED) for m in EVOLVED_MESSAGES])),
               write(tmp / "stream.jsonl", renderer.render(stream, STREAM))])
    # raw datums need a declared format (or a topic_formats row): by shape they are dts_avro
    rejects = [synth.Record(REJECTS, 0, i, T0, v, key="k") if isinstance(v, str)
               else synth.Record.of_bytes(REJECTS, 0, i, T0, v, key="k") for i, (v, _) in enumerate(REJECT_CASES)]
    lake.land([write(tmp / "raw.jsonl", binary_records(RAW, [datum(m, s) for m, s in RAW_MESSAGES])),
               write(tmp / "rejects.jsonl", rejects)], declared_format="drs_avro")
    yield
    return Built(lake, stream)


def changes(lake: Lake, topic: str) -> list[Row]:
    return lake.rows(
        """select kafka_offset, op, vendor_op, source_db, source_schema, source_table, table_id, pk_columns,
                  row_key, before, after, column_types,
                  date_format(event_ts, "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'") as event_ts,
                  transform(sort_key, k -> cast(k as string)) as sort_key
           from silver.cdc_changes where topic = :topic order by kafka_offset""", topic=topic)


def gold_rows(lake: Lake, table_id: str) -> list[Row]:
    return lake.rows("""select row_key, row, row_count from gold.cdc_current_rows where table_id = :t
                        order by row_key""", t=table_id)


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def test_single_object_changes_of_a_configured_key_table(built):
    """INSERT / UPDATE / DELETE / INIT (SNAPSHOT) of Oracle "HR"."EMP" (quotes stripped,
    schema.table), routed by the C3 01 header; images zipped with `fields`, NULLs and
    unicode kept; key ID from var cdc_primary_keys (an UPDATE changes it: 1 -> 4); ordered
    by [seqno, updateTimestamp ms]."""
    rows = [r for r in changes(built.lake, SINGLE) if r["table_id"] == "hr.emp"]
    types = {"ID": "NUMBER", "NAME": "VARCHAR2", "NOTE": "CLOB"}

    def img(values: list[str | None] | None) -> dict[str, str | None] | None:
        return None if values is None else dict(zip(types, values, strict=True))

    expected = [(0, "INSERT", None, emp("1", UNICODE, None), '["1"]'),
                (1, "UPDATE", emp("1", UNICODE, None), emp("1", "O'Brien", "line\nbreak"), '["1"]'),
                (2, "INSERT", None, emp("2", "two", None), '["2"]'),
                (3, "DELETE", emp("2", "two", None), None, '["2"]'),
                (4, "SNAPSHOT", None, emp("3", None, "snap"), '["3"]'),
                (5, "UPDATE", emp("1", "O'Brien", "line\nbreak"), emp("4", "O'Brien", "line\nbreak"), '["4"]')]
    assert rows == [{
        "kafka_offset": offset, "op": op, "vendor_op": "INIT" if op == "SNAPSHOT" else op, "source_db": None,
        "source_schema": "HR", "source_table": "EMP", "table_id": "hr.emp", "pk_columns": ["ID"],
        "row_key": key, "before": img(before), "after": img(after), "column_types": types,
        "event_ts": iso(T0 + offset * 1000),
        "sort_key": [str(101 + offset), str(T0 + offset * 1000)],
    } for offset, op, before, after, key in expected]
    assert gold_rows(built.lake, "hr.emp") == [
        {"row_key": '["3"]', "row": img(emp("3", None, "snap")), "row_count": 1},
        {"row_key": '["4"]', "row": img(emp("4", "O'Brien", "line\nbreak")), "row_count": 1},
    ]


def test_unkeyed_table_truncate_and_multiset(built):
    """"HR"."LOG" has no configured key: a multiset. A DDL whose statement (the only after
    value, no fields) is a TRUNCATE is a TRUNCATE change; two identical INSERTs count 2."""
    rows = [(r["op"], r["vendor_op"], r["pk_columns"], r["after"]) for r in changes(built.lake, SINGLE)
            if r["table_id"] == "hr.log"]
    assert rows == [("INSERT", "INSERT", [], {"MSG": "gone", "LEVEL": "1"}), ("TRUNCATE", "DDL", [], None),
                    ("INSERT", "INSERT", [], {"MSG": "same", "LEVEL": "2"}),
                    ("INSERT", "INSERT", [], {"MSG": "same", "LEVEL": "2"}),
                    ("INSERT", "INSERT", [], {"MSG": None, "LEVEL": "3"}), ("DELETE", "DELETE", [], None)]
    assert [(r["row"], r["row_count"]) for r in gold_rows(built.lake, "hr.log")] == [
        ({"MSG": "same", "LEVEL": "2"}, 2)]


def test_ddl_and_other_operations(built):
    """DDL text lives in the only after value (reconstructed schema) or in a `sql` field
    (evolved schema); an operation we do not know (HEARTBEAT here) is an OTHER marker."""
    ddl = built.lake.rows("""select topic, vendor_op, table_id, ddl_text, ddl_dialect, ddl_action,
                                    date_format(event_ts, "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'") as event_ts
                             from silver.cdc_ddl_events where topic in (:a, :b) order by topic""",
                          a=SINGLE, b=EVOLVED_TOPIC)
    assert ddl == [
        {"topic": EVOLVED_TOPIC, "vendor_op": "DDL", "table_id": "shop.typed",
         "ddl_text": "ALTER TABLE shop.typed ADD COLUMN extra varchar(8)", "ddl_dialect": "mysql",
         "ddl_action": "ALTER", "event_ts": "2021-06-25T09:52:00.000Z"},
        {"topic": SINGLE, "vendor_op": "DDL", "table_id": "hr.emp",
         "ddl_text": 'CREATE TABLE "HR"."EMP2" ("ID" NUMBER PRIMARY KEY)', "ddl_dialect": "oracle",
         "ddl_action": "CREATE", "event_ts": iso(T0 + 6000)},
    ]
    markers = built.lake.rows("""select kafka_offset, marker_kind, vendor_op, detail, table_id
                                 from silver.cdc_heartbeats where topic = :t""", t=SINGLE)
    assert markers == [{"kafka_offset": 7, "marker_kind": "OTHER", "vendor_op": "HEARTBEAT",
                        "detail": 'HEARTBEAT "HR"."EMP"', "table_id": "hr.emp"}]


def test_evolved_schema_typed_values_picked_by_fingerprint(built):
    """Messages of the second configured schema (found by a path relative to the project)
    decode beside those of the reconstructed one: typed values render from the schema
    (long, decimal exact, double plain, boolean, bytes base64, date, timestamp-millis UTC,
    map as JSON), updateTimestamp (timestamp-millis) is the event time."""
    (row,) = changes(built.lake, EVOLVED_TOPIC)
    assert row["after"] == TYPED_TEXT and row["before"] is None
    assert row["column_types"] == dict(TYPED_COLUMNS)
    assert (row["event_ts"], row["sort_key"], row["table_id"]) == ("2021-06-25T09:51:53.201Z", ["301", str(T0)],
                                                                   "shop.typed")


def test_raw_datums_of_both_schemas(built):
    rows = changes(built.lake, RAW)
    assert [(r["op"], r["after"], r["table_id"]) for r in rows] == [
        ("INSERT", {"id": "1", "name": "raw reconstructed"}, "avro_shop.items"),
        ("INSERT", {"id": "2", "name": "raw evolved"}, "avro_shop.items"),
    ]


def test_routing_single_object_by_shape_raw_by_declaration(built):
    """C3 01 values route to drs_avro by shape; raw datums only because they were declared."""
    routed = built.lake.rows("""select topic, vendor_format, format_source, count(*) as n from silver.int_cdc__decoded
                                where topic in (:a, :b, :c, :d) group by 1, 2, 3 order by 1""",
                             a=SINGLE, b=EVOLVED_TOPIC, c=RAW, d=STREAM)
    assert routed == [
        {"topic": EVOLVED_TOPIC, "vendor_format": "drs_avro", "format_source": "shape", "n": 2},
        {"topic": RAW, "vendor_format": "drs_avro", "format_source": "declared", "n": 2},
        {"topic": SINGLE, "vendor_format": "drs_avro", "format_source": "shape", "n": len(SINGLE_MESSAGES)},
        {"topic": STREAM, "vendor_format": "drs_avro", "format_source": "shape",
         "n": sum(len(c.rows) for c in built.stream.changes) + 1},
    ]


def test_malformed_messages_are_rejects_with_reasons(built):
    rejects = built.lake.rows("""select kafka_offset, reject_stage, reject_reason, vendor_format, message_value
                                 from silver.cdc_rejects where topic = :t order by kafka_offset""", t=REJECTS)
    assert [(r["kafka_offset"], r["reject_stage"], r["vendor_format"]) for r in rejects] == [
        (i, "decode", "drs_avro") for i in range(len(REJECT_CASES))]
    for reject, (value, reason) in zip(rejects, REJECT_CASES, strict=True):
        assert reason in reject["reject_reason"], (reject["reject_reason"], reason)
        assert reject["message_value"] == (value if isinstance(value, str) else b64(value))
    others = built.lake.rows("select count(*) as n from silver.cdc_rejects where topic in (:a, :b, :c, :d)",
                             a=SINGLE, b=EVOLVED_TOPIC, c=RAW, d=STREAM)
    assert others == [{"n": 0}]


def test_rendered_stream_folds_to_the_reference(built):
    """synth.generate(300 changes) rendered in single-object framing, keys of orders and
    order_lines configured (events stays a multiset), folds in gold to synth.fold."""
    got = {(r["table_id"], r["row_key"]): (r["row"], r["row_count"]) for r in built.lake.rows(
        "select table_id, row_key, row, row_count from gold.cdc_current_rows where table_id like :p",
        p=SYNTH_DB + ".%")}
    assert got == synth.fold(built.stream)
    (count,) = built.lake.rows("select count(*) as n from silver.cdc_changes where topic = :t", t=STREAM)
    assert count["n"] == sum(len(c.rows) for c in built.stream.changes) + 1  # plus the TRUNCATE
