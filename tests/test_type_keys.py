"""UDF cdc_type_keys (udfs/types.py) in plain Python: the seed lookup keys of a reported
type, most specific first, with precision and scale. tests/test_typed_tables.py maps every
vendor type of the documents through the seed in Spark; these pin the key rules."""

from __future__ import annotations

import pytest

from udfs.types import type_keys


@pytest.mark.parametrize(("system", "vendor_type", "keys", "precision", "scale"), [
    ("mysql", "int(11) unsigned zerofill", ["mysql:int unsigned", "mysql:int", "sqlglot:uint"], 11, None),
    ("mysql", "DECIMAL(8, 0) unsigned", ["mysql:decimal unsigned", "mysql:decimal", "sqlglot:udecimal"], 8, 0),
    ("mysql", "enum('a,b','c')", ["mysql:enum", "sqlglot:enum"], None, None),
    ("oracle", "NUMBER(10,2)", ["oracle:number", "sqlglot:decimal"], 10, 2),
    ("oracle", "VARCHAR2(50 BYTE)", ["oracle:varchar2", "sqlglot:varchar"], 50, None),
    ("gaussdb", "timestamp(6) with time zone",
     ["postgres:timestamp with time zone", "postgres:timestamp", "sqlglot:timestamptz"], 6, None),
    ("sqlserver", "datetime2(7)", ["tsql:datetime2", "sqlglot:datetime2"], 7, None),
    ("connect", "int64 io.debezium.time.MicroTimestamp", ["connect:io.debezium.time.microtimestamp", "connect:int64"],
     None, None),
    ("dts", "252 Character:utf8mb4", ["dts:252 character", "dts:252", "dts:character"], None, None),
    ("datahub", "DECIMAL(17,4)", ["datahub:decimal"], 17, 4),
    ("bson", "null", ["bson:null value"], None, None),
])
def test_lookup_keys_most_specific_first(system, vendor_type, keys, precision, scale):
    found = type_keys(system, vendor_type)
    assert found is not None
    assert (found["keys"], found["precision"], found["scale"]) == (keys, precision, scale)


@pytest.mark.parametrize(("system", "vendor_type", "is_null_value"), [
    ("dts", "15 EmptyObject:NULL", True), ("dts", "15 Character:utf8mb4", False), ("datahub", "VOID", True),
    ("bson", "null", True), ("bson", "string", False), ("mysql", "null", False),
])
def test_types_that_only_say_the_value_was_null(system, vendor_type, is_null_value):
    found = type_keys(system, vendor_type)
    assert found is not None and found["is_null_value"] is is_null_value


@pytest.mark.parametrize(("system", "vendor_type"), [(None, "int"), ("mysql", None), ("mysql", "  ")])
def test_no_type_gives_no_keys(system, vendor_type):
    assert type_keys(system, vendor_type) is None
