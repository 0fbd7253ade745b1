"""Mutated Kafka records for the fuzz test (tests/examples/test_realdb_harness.py).

Seeds are valid records of every format (the real-database renderings and the bundled
vendor samples), moved to databases of their own (`rdb_` -> `fzz_`, the same length, so
Avro's length-prefixed strings stay valid) and to topics of their own, so that whatever a
mutated record still decodes to can never touch the tables of the valid records. Each
seed gets one mutation; the result is raw JSON lines (bytes: some mutations are invalid
UTF-8), deterministic for a seed number.
"""

from __future__ import annotations

import base64
import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from synth import Record

VALID_PREFIX = b"rdb_"
FUZZ_PREFIX = b"fzz_"
TEN_MB = 10 * 1024 * 1024

# names a source may have and a lake must survive
HOSTILE_NAMES = [
    "nul\u0000name", "a/b", "../../etc", "x" * 300, "Users", "users", "a.b", "back`tick",
    "'; drop table t; --", "line\nbreak", "\U0001f600\u4e2d\u6587", " ", "", "%2F", "=", "__HIVE_DEFAULT_PARTITION__",
]
ABSURD_TIMES = [1700000000000000000, -9223372036854775808, 9223372036854775807, 10 ** 30, -1, 0.5, "yesterday"]
HUGE_NUMBERS = ["1e99999", "-1e-99999", "9" * 400, "123456789876543212345678987654321.110", "NaN", "-0",
                "18446744073709551616"]
OP_KEYS = {"type", "op", "opType", "_operation_type_", "operation", "recordType", "operationType"}
NAME_KEYS = {"database", "table", "db", "schema", "tableName", "objectName", "coll", "_source_table_",
             "schemaName", "dbName", "TABLE_NAME", "SCHEMA_NAME"}
SAMPLE_NAME_KEYS = NAME_KEYS | {"SEG_OWNER"}
TIME_KEYS = re.compile(r"^(es|ts|ts_ms|ts_us|ts_ns|timestamp|TIMESTAMP|sourceTimestamp|eventMs|_execute_time_|"
                       r"clusterTime|executeTime|eventTime|systemTime|born_ts|sourceTime)$")


@dataclass(frozen=True)
class Seed:
    record: Record
    declared_format: str | None


@dataclass(frozen=True)
class Mutant:
    mutation: str
    line: bytes
    declared_format: str | None


def moved_sample(line: str) -> str:
    """A vendor sample's record in the fuzz databases: every name of a source database,
    schema or table gets the `fzz_` prefix (the samples use no `rdb_` names)."""
    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: FUZZ_PREFIX.decode() + v if k in SAMPLE_NAME_KEYS and isinstance(v, str) else walk(v)
                    for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node
    return json.dumps(walk(json.loads(line)), ensure_ascii=False)


def moved(record: Record, topic: str) -> Record:
    """The record in the fuzz databases (`rdb_` -> `fzz_`) and on `topic`."""
    if record.value is None:
        return Record(topic, record.partition, record.offset, record.timestamp, None, record.key, record.binary)
    if record.binary:
        value = base64.b64encode(base64.b64decode(record.value).replace(VALID_PREFIX, FUZZ_PREFIX)).decode()
    else:
        value = record.value.replace(VALID_PREFIX.decode(), FUZZ_PREFIX.decode())
    key = None if record.key is None else record.key.replace(VALID_PREFIX.decode(), FUZZ_PREFIX.decode())
    return Record(topic, record.partition, record.offset, record.timestamp, value, key, record.binary)


def _envelope(record: Record, value: Any, binary: bool, **extra: Any) -> dict[str, Any]:
    body = {"topic": record.topic, "partition": record.partition, "offset": record.offset,
            "timestamp": record.timestamp, "key": record.key,
            "value_base64" if binary else "value": value}
    body.update(extra)
    return body


def _line(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


def _payload(record: Record) -> bytes:
    if record.value is None:
        return b""
    return base64.b64decode(record.value) if record.binary else record.value.encode("utf-8")


def _with_payload(record: Record, payload: bytes) -> bytes:
    """The envelope line of `record` with `payload` as its value: base64 for binary
    records, else the bytes as they are (invalid UTF-8 stays invalid in the line)."""
    if record.binary:
        return _line(_envelope(record, base64.b64encode(payload).decode(), True))
    marker = "\u2063VALUE\u2063"
    line = _line(_envelope(record, marker, False))
    escaped = json.dumps(payload.decode("utf-8", errors="surrogateescape"), ensure_ascii=False)[1:-1]
    return line.replace(marker.encode(), escaped.encode("utf-8", errors="surrogateescape"))


def _json_value(record: Record) -> Any:
    if record.binary or record.value is None:
        return None
    try:
        return json.loads(record.value)
    except ValueError:
        return None


def _paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (tuple of keys / indexes) to a value inside `doc`."""
    found = []
    if isinstance(doc, dict):
        items: list[tuple[Any, Any]] = list(doc.items())
    elif isinstance(doc, list):
        items = list(enumerate(doc))
    else:
        return found
    for key, value in items:
        found.append((*prefix, key))
        found.extend(_paths(value, (*prefix, key)))
    return found


def _set(doc: Any, path: tuple, value: Any) -> None:
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


def _edit_json(record: Record, rng: random.Random, pick: Callable[[tuple], bool],
               value: Callable[[random.Random], Any]) -> bytes | None:
    """The record with the value at a random path that `pick` accepts replaced by
    `value(rng)`; None when the value is no JSON or no path qualifies."""
    doc = _json_value(record)
    if doc is None:
        return None
    paths = [p for p in _paths(doc) if pick(p)]
    if not paths:
        return None
    _set(doc, rng.choice(paths), value(rng))
    return _line(_envelope(record, json.dumps(doc, ensure_ascii=False), False))


def _truncate(record: Record, rng: random.Random) -> bytes | None:
    payload = _payload(record)
    return _with_payload(record, payload[:rng.randrange(len(payload))]) if payload else None


def _flip(record: Record, rng: random.Random) -> bytes | None:
    payload = bytearray(_payload(record))
    if not payload:
        return None
    for _ in range(rng.randint(1, 8)):
        payload[rng.randrange(len(payload))] ^= rng.randint(1, 255)
    return _with_payload(record, bytes(payload))


def _wrong_type(record: Record, rng: random.Random) -> bytes | None:
    others = [0, -1, 1.5, "text", True, None, [], {}, [1, "a", None], {"k": [1]}]
    return _edit_json(record, rng, lambda p: True, lambda r: r.choice(others))


def _huge_number(record: Record, rng: random.Random) -> bytes | None:
    doc = _json_value(record)
    if doc is None:
        return None
    text = json.dumps(doc, ensure_ascii=False)
    numbers = list(re.finditer(r'(?<=[:\[,])-?\d+(\.\d+)?([eE][-+]?\d+)?(?=[,\]}])', text))
    if not numbers:
        return None
    hit = rng.choice(numbers)
    return _line(_envelope(record, text[:hit.start()] + rng.choice(HUGE_NUMBERS) + text[hit.end():], False))


def _deep(record: Record, rng: random.Random) -> bytes | None:
    opened = [rng.choice(("[", '{"n":')) for _ in range(rng.choice([100, 1000, 5000]))]
    text = "".join(opened) + '"bottom"' + "".join("]" if o == "[" else "}" for o in reversed(opened))
    doc = _json_value(record)
    if doc is None:
        return _with_payload(record, text.encode())
    paths = _paths(doc)
    if not paths:
        return None
    _set(doc, rng.choice(paths), "\u2063DEEP\u2063")
    return _line(_envelope(record, json.dumps(doc).replace('"\\u2063DEEP\\u2063"', text), False))


def _invalid_utf8(record: Record, rng: random.Random) -> bytes | None:
    payload = _payload(record)
    at = rng.randrange(len(payload) + 1)
    bad = rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80\x80"])
    return _with_payload(record, payload[:at] + bad + payload[at:])


def _nul(record: Record, rng: random.Random) -> bytes | None:
    return _edit_json(record, rng, lambda p: True, lambda r: r.choice(["\u0000", "a\u0000b", "\u0000" * 100]))


def _empty(record: Record, rng: random.Random) -> bytes | None:
    value = rng.choice(["", None, "{}", "[]", "null", " ", "\"\""])
    return _line(_envelope(record, value, False))


def _bad_base64(record: Record, rng: random.Random) -> bytes | None:
    return _line(_envelope(record, rng.choice(["====", "!!!notbase64", "QUJD=", "A", "\u00e9t\u00e9"]), True))


def _ten_mb(record: Record, rng: random.Random) -> bytes | None:
    big = rng.choice(["x", "\u4e2d", "\\"]) * (TEN_MB // 3)
    doc = _json_value(record)
    if doc is None:
        return _with_payload(record, _payload(record) + big.encode())
    strings = [p for p in _paths(doc) if isinstance(_get(doc, p), str)]
    if not strings:
        return None
    _set(doc, rng.choice(strings), big)
    return _line(_envelope(record, json.dumps(doc, ensure_ascii=False), False))


def _get(doc: Any, path: tuple) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def _unknown_op(record: Record, rng: random.Random) -> bytes | None:
    return _edit_json(record, rng, lambda p: p[-1] in OP_KEYS,
                      lambda r: r.choice(["FROBNICATE", "", "x" * 1000, "c\u0000", "insert", "DELETE "]))


def _absurd_time(record: Record, rng: random.Random) -> bytes | None:
    return _edit_json(record, rng, lambda p: isinstance(p[-1], str) and TIME_KEYS.match(p[-1]) is not None,
                      lambda r: r.choice(ABSURD_TIMES))


def _hostile_name(record: Record, rng: random.Random) -> bytes | None:
    return _edit_json(record, rng, lambda p: p[-1] in NAME_KEYS, lambda r: r.choice(HOSTILE_NAMES))


def _hostile_envelope(record: Record, rng: random.Random) -> bytes | None:
    body = _envelope(record, record.value, record.binary)
    field, value = rng.choice([("topic", "t/../" + "x" * 300), ("topic", "nul\u0000topic"), ("topic", ""),
                               ("timestamp", 10 ** 19), ("timestamp", -10 ** 17), ("partition", -5),
                               ("partition", "zero"), ("offset", None), ("offset", 2 ** 70),
                               ("headers", {"h": "\u0000"}), ("key", {"not": "text"})])
    body[field] = value
    return _line(body)


# name -> (mutation, weight); each seed gets one, chosen by weight (the 10 MB one rarely)
MUTATIONS: dict[str, tuple[Callable[[Record, random.Random], bytes | None], int]] = {
    "truncation": (_truncate, 10),
    "byte flips": (_flip, 10),
    "wrong JSON type": (_wrong_type, 10),
    "huge number": (_huge_number, 8),
    "deep nesting": (_deep, 3),
    "invalid UTF-8": (_invalid_utf8, 6),
    "NUL": (_nul, 6),
    "empty value": (_empty, 4),
    "wrong base64": (_bad_base64, 4),
    "unknown op": (_unknown_op, 6),
    "absurd timestamp": (_absurd_time, 8),
    "hostile name": (_hostile_name, 8),
    "hostile envelope": (_hostile_envelope, 4),
}
TEN_MB_RECORDS = 3


def mutants(seeds: list[Seed], seed: int) -> list[Mutant]:
    """One mutant per seed (a mutation that does not apply to a seed falls back to byte
    flips), plus TEN_MB_RECORDS values of 10 MB."""
    rng = random.Random(seed)
    names = list(MUTATIONS)
    weights = [MUTATIONS[n][1] for n in names]
    out: list[Mutant] = []
    for item in seeds:
        name = rng.choices(names, weights)[0]
        line = MUTATIONS[name][0](item.record, rng)
        if line is None:
            name, line = "byte flips", _flip(item.record, rng) or _empty(item.record, rng)
        assert line is not None
        out.append(Mutant(name, line, item.declared_format))
    for item in rng.sample(seeds, TEN_MB_RECORDS):
        line = _ten_mb(item.record, rng)
        if line is not None:
            out.append(Mutant("10 MB string", line, item.declared_format))
    return out
