"""Which Canal-family values the decoder converts: a column of a type canal_family_value
reads (binary, JSON, ENUM and SET, DRS JSON's TIMESTAMP), a number column's value in
scientific notation. The decoder looks for them in the parsed message's type texts and
number values, not in its raw text: each case here would decode otherwise if it missed
one, or converted a value whose column's type does not ask for it. Decoder unit tests
(tests/decoder_support.py): each format decodes all of its cases in one query."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import pytest

ES = 1_700_000_000_000


def canal_insert(row: dict[str, str], types: dict[str, str] | None) -> str:
    """An INSERT of one row into shop.t keyed by `id`, with `types` as its mysqlType."""
    return canal_change("INSERT", row, None, types)


def canal_update(row: dict[str, str], old: dict[str, str], types: dict[str, str]) -> str:
    """An UPDATE of one row of shop.t whose `old` holds the changed columns' values before."""
    return canal_change("UPDATE", row, [old], types)


def canal_change(op: str, row: dict[str, str], old: list[dict[str, str]] | None,
                 types: dict[str, str] | None) -> str:
    return json.dumps({"data": [{"id": "1", **row}], "old": old, "database": "shop", "table": "t",
                       "pkNames": ["id"], "isDdl": False, "type": op, "es": ES, "ts": ES + 5, "id": 7,
                       "sql": "", "mysqlType": None if types is None else {"id": "bigint", **types}})


# (formats, message, the `after` image's values expected besides id, the `before` image's or None)
CASES: list[tuple[tuple[str, ...], str, dict[str, str], dict[str, str] | None]] = [
    # a number in scientific notation, in any of its forms, becomes plain digits
    (("canal_json", "canal_json_legacy", "drs_json", "drs_json_c"),
     canal_insert({"d": "1.25E3", "f": "1.e5", "r": "-5E-3"},
                  {"d": "decimal(20,4)", "f": "FLOAT", "r": "double precision"}),
     {"d": "1250", "f": "100000", "r": "-0.005"}, None),
    # alone in its message too (a look for the notation in the raw text missed "1.e5")
    (("canal_json", "drs_json_c"), canal_insert({"f": "1.e5"}, {"f": "float"}), {"f": "100000"}, None),
    # the same text in a column of another type, or of no known type, stays as it is
    (("canal_json", "drs_json"), canal_insert({"s": "1E5", "u": "2e3"}, {"s": "varchar(8)"}),
     {"s": "1E5", "u": "2e3"}, None),
    (("canal_json",), canal_insert({"d": "1E5"}, None), {"d": "1E5"}, None),
    # a number without an exponent stays as the vendor wrote it
    (("canal_json", "drs_json"), canal_insert({"d": "12.50", "f": "0.1"}, {"d": "decimal(10,2)", "f": "float"}),
     {"d": "12.50", "f": "0.1"}, None),
    # a type written in capitals, with a width
    (("canal_json",), canal_insert({"b": "ab"}, {"b": "VARBINARY(4)"}), {"b": "YWI="}, None),
    (("canal_json",), canal_insert({"b": "ab"}, {"b": "binary(4)"}), {"b": "YWIAAA=="}, None),
    (("canal_json", "canal_json_legacy"), canal_insert({"e": "2", "s": "5"}, {"e": "ENUM('x','y')",
                                                                               "s": "set('a','b','c')"}),
     {"e": "y", "s": "a,c"}, None),
    (("canal_json", "drs_json"), canal_insert({"j": '{"a": [1, 2]}'}, {"j": "json"}), {"j": '{"a":[1,2]}'}, None),
    # a type's name in a value, or in a column's name, converts nothing
    (("canal_json",), canal_insert({"binary": "binary", "enum": "ENUM('x')"}, {"binary": "text", "enum": "text"}),
     {"binary": "binary", "enum": "ENUM('x')"}, None),
    # an UPDATE whose number changed from a value in scientific notation: both images
    (("canal_json", "drs_json"), canal_update({"d": "2E2"}, {"d": "1.5E2"}, {"d": "double"}),
     {"d": "200"}, {"d": "150"}),
    # the notation in `old` alone, in a number column that is not the message's first
    (("canal_json", "drs_json"),
     canal_update({"s": "a", "d": "200"}, {"d": "1.5E2"}, {"s": "varchar(4)", "d": "double"}),
     {"s": "a", "d": "200"}, {"s": "a", "d": "150"}),
    # a value with the notation on a line of its own is not a number: it stays as it is
    (("canal_json",), canal_insert({"d": "x\n1E5"}, {"d": "decimal(10,2)"}), {"d": "x\n1E5"}, None),
]


@pytest.fixture(scope="module")
def decoded(decoders) -> dict[tuple[int, str], dict[str, Any]]:
    """(case index, format) -> the decoded row of its message: one query per format."""
    by_format: dict[str, list[int]] = defaultdict(list)
    for index, (formats, _, _, _) in enumerate(CASES):
        for format_id in formats:
            by_format[format_id].append(index)
    rows: dict[tuple[int, str], dict[str, Any]] = {}
    for format_id, indexes in by_format.items():
        decoded_rows = decoders.rows(format_id, [CASES[i][1] for i in indexes])
        assert len(decoded_rows) == len(indexes), decoded_rows
        for index, row in zip(indexes, decoded_rows, strict=True):
            rows[(index, format_id)] = row
    return rows


@pytest.mark.parametrize(("index", "format_id"),
                         [(i, f) for i, (formats, _, _, _) in enumerate(CASES) for f in formats])
def test_values_convert_as_their_column_type_asks(decoded, index: int, format_id: str):
    _, _, after, before = CASES[index]
    row = decoded[(index, format_id)]
    assert row["record_kind"] == "change", row["reject_reason"]
    assert {k: v for k, v in row["after"].items() if k != "id"} == after
    if before is not None:
        assert {k: v for k, v in row["before"].items() if k != "id"} == before
