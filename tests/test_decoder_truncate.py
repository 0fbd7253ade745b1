"""The table of a TRUNCATE, per decoder: the message's own database and table fields where
it has them, else the table its statement names (cdc_truncate_target). Decoder unit tests
(tests/decoder_support.py): one decoder over a few messages, no build; each decoder runs
once over all of its cases (a query costs 1-4 s of planning and running, whatever it
reads), and each case's test reads the rows of its own message."""

from __future__ import annotations

import base64
import json
from collections import defaultdict
from typing import Any

import pytest

from renderers import drs_avro as drs_avro_renderer, dts_avro as dts_avro_renderer
from udfs import drs_avro

ES = 1_700_000_000_000


def canal(database: str, table: str, sql: str) -> str:
    return json.dumps({"data": None, "old": None, "database": database, "table": table, "type": "TRUNCATE",
                       "isDdl": True, "es": ES, "ts": ES + 5, "id": 1, "pkNames": None, "sql": sql})


def dataworks(database: str, table: str, sql: str) -> str:
    return json.dumps({
        "schema": {"dataColumn": None, "primaryKey": None,
                   "source": {"dbType": "MySQL", "dbName": database, "tableName": table}},
        "payload": {"before": None, "after": None, "sequenceId": "1", "op": "TRUNCATE",
                    "timestamp": {"eventTime": ES, "systemTime": ES + 250, "checkpointTime": ES},
                    "ddl": {"text": sql, "ddlMeta": None}},
        "version": "0.0.1",
    })


def drs_avro_record(table_name: str, sql: str) -> dict[str, str]:
    message = {"version": "1.0", "seqno": 1, "shardId": "0", "eventid": "e-1", "updateTimestamp": ES,
               "tableName": table_name, "operation": "DDL", "columnCount": 0, "fields": [],
               "beforeImages": None, "afterImages": [{"value": sql}]}
    schema = drs_avro.load_schema(drs_avro.DEFAULT_SCHEMA)
    return {"value_base64": base64.b64encode(drs_avro_renderer.encode(message, schema)).decode("ascii")}


def dts_avro_record(object_name: str | None, sql: str) -> dict[str, str]:
    datum = dts_avro_renderer.record("DDL", object_name, None, None, sql)
    return {"value_base64": base64.b64encode(dts_avro_renderer.encode(datum)).decode("ascii")}


# (format, message, (source_db, source_table) of the decoded TRUNCATE)
CASES = [
    # the statement names the table when the message does not, in either case, quoted or not
    ("canal_json", canal("", "", "TRUNCATE TABLE `shop`.`orders`"), ("shop", "orders")),
    ("canal_json", canal("shop", "", "truncate table orders;"), ("shop", "orders")),
    # the message's fields win over the statement's
    ("canal_json", canal("shop", "orders", "TRUNCATE TABLE `other`.`t`"), ("shop", "orders")),
    ("drs_json", canal("", "", "truncate `shop`.`orders`"), ("shop", "orders")),
    ("dataworks_json", dataworks("", "", "TRUNCATE TABLE `shop`.`orders`"), ("shop", "orders")),
    ("dataworks_json", dataworks("shop", "", "TRUNCATE TABLE orders"), ("shop", "orders")),
    # a database the message names stays, whatever the statement qualifies
    ("dataworks_json", dataworks("shop", "", "TRUNCATE TABLE `other`.`orders`"), ("shop", "orders")),
    ("dataworks_json", dataworks("shop", "orders", "TRUNCATE TABLE `other`.`t`"), ("shop", "orders")),
    ("drs_avro", drs_avro_record("", 'TRUNCATE TABLE "shop"."orders"'), ("shop", "orders")),
    ("drs_avro", drs_avro_record('"db1"."shop"."orders"', 'TRUNCATE TABLE "x"."y"'), ("db1", "orders")),
    ("dts_avro", dts_avro_record(None, "TRUNCATE TABLE `shop`.`orders`"), ("shop", "orders")),
    ("dts_avro", dts_avro_record("shop", "TRUNCATE TABLE orders"), ("shop", "orders")),
    ("dts_avro", dts_avro_record("shop.orders", "TRUNCATE TABLE `other`.`t`"), ("shop", "orders")),
]


@pytest.fixture(scope="module")
def decoded(decoders) -> dict[int, list[dict[str, Any]]]:
    """Case index -> the decoded rows of its message: one run of each decoder over its cases."""
    by_format: dict[str, list[int]] = defaultdict(list)
    for index, (format_id, _, _) in enumerate(CASES):
        by_format[format_id].append(index)
    rows: dict[int, list[dict[str, Any]]] = {}
    for format_id, indexes in by_format.items():
        decoded_rows = decoders.rows(format_id, [CASES[i][1] for i in indexes])
        for line, index in enumerate(indexes, start=1):
            rows[index] = [r for r in decoded_rows if r["source_line"] == line]
    return rows


@pytest.mark.parametrize("case", range(len(CASES)), ids=[f"{f}-{i}" for i, (f, _, _) in enumerate(CASES)])
def test_a_truncate_names_its_table(decoded, case):
    _, _, table = CASES[case]
    (row,) = decoded[case]
    assert row["reject_reason"] is None
    assert (row["op"], (row["source_db"], row["source_table"])) == ("TRUNCATE", table)
