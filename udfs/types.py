"""Vendor column type -> lookup keys for the type map seed (UDF `cdc_type_keys(system, type)`).

The seed `seeds/cdc_type_map.csv` maps `(type_system, vendor_type)` to a Spark type. A
reported type is looked up under several keys, most specific first, and the first key the
seed has wins:

- SQL type systems (mysql, postgres, oracle, tsql, and the vendors' own names): the type
  without its parameters and with its modifiers (`int(11) unsigned zerofill` -> `int
  unsigned`), then its first word (`int`), then sqlglot's name for the type in that dialect
  under the system `sqlglot` (`sqlglot:uint`), so a spelling the seed does not list still
  maps when sqlglot knows it (types up to 64 Ki characters);
- connect (Debezium, CDL): the semantic name, then the Connect type;
- dts (DTS Avro): `<dataTypeNumber> <value branch>`, then the number, then the branch;
- datahub, bson, dataworks: the name without parameters.

Precision and scale are the type's first two numeric parameters (`decimal(20,4)`,
`number(10)`, `DECIMAL(17,4)`, `NUMBER(38,-3)`), held to the int32 range (a precision of
99999999999999999999 digits is 2147483647: still far too many for a Spark decimal, so
the column stays exact text); the seed row decides whether they matter.
"""

from __future__ import annotations

import logging
import re
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from udfs import arrow
from udfs.ddl import DIALECTS

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


# Type systems whose types are SQL type names of a dialect, with the sqlglot dialect that reads them.
SQL_DIALECTS = {"mysql": "mysql", "postgres": "postgres", "oracle": "oracle", "tsql": "tsql",
                "dataworks": "mysql"}
# Other names of a type system: the dialect aliases of the DDL parser (GaussDB and openGauss
# speak PostgreSQL's types, sqlserver is tsql, ...)
SYSTEM_ALIASES = {name: dialect for name, dialect in DIALECTS.items() if name != dialect}
_PARAMS = re.compile(r"\(([^()]*)\)")
_NUMBERS = re.compile(r"^\s*(\d+)\s*(?:,\s*(-?\d+)\s*)?")
_NULL_VALUE = {"dts": {"emptyobject"}, "datahub": {"void"}, "bson": {"null"}}
_INT32_MIN, _INT32_MAX = -2**31, 2**31 - 1


def _int32(digits: str | None) -> int | None:
    """A type parameter held to the int32 range of the result; None when absent."""
    if digits is None:
        return None
    value = Decimal(digits)  # not int(): Python refuses to convert more than 4300 digits
    return int(min(max(value, Decimal(_INT32_MIN)), Decimal(_INT32_MAX)))


def _numbers(text: str) -> tuple[int | None, int | None]:
    params = _PARAMS.search(text)
    found = _NUMBERS.match(params.group(1)) if params else None
    if not found:
        return None, None
    return _int32(found.group(1)), _int32(found.group(2))


# sqlglot reads a type of up to this many characters (a MySQL ENUM of a thousand values
# fits); a longer text is no type a database reports, and reading it would take seconds
SQLGLOT_MAX_CHARS = 65_536


def _sqlglot_name(text: str, dialect: str) -> str | None:
    if len(text) > SQLGLOT_MAX_CHARS:
        return None
    from sqlglot import exp

    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    try:
        built = exp.DataType.build(text, dialect=dialect, udt=True)
    except Exception:  # sqlglot raises several error types; all mean "not a type it knows"
        return None
    if built.this == exp.DataType.Type.USERDEFINED:
        return None
    return str(built.this.value).lower()


def _sql_keys(system: str, text: str) -> list[str]:
    bare = " ".join(_PARAMS.sub(" ", text).lower().replace("zerofill", " ").split())
    keys = [f"{system}:{bare}"]
    first = bare.split(" ")[0] if bare else ""
    if first and first != bare:
        keys.append(f"{system}:{first}")
    canonical = _sqlglot_name(text, SQL_DIALECTS[system])
    if canonical:
        keys.append(f"sqlglot:{canonical}")
    return keys


def type_keys(system: str | None, vendor_type: str | None) -> dict[str, Any] | None:
    """Lookup keys (`system:name`, most specific first), precision and scale of one type."""
    if system is None or vendor_type is None or not vendor_type.strip():
        return None
    text = vendor_type.strip()
    system = SYSTEM_ALIASES.get(system, system)
    precision, scale = _numbers(text)
    lowered = text.lower()
    if system in SQL_DIALECTS:
        keys = _sql_keys(system, text)
    elif system == "connect":
        parts = lowered.split()
        keys = [f"connect:{p}" for p in reversed(parts)]
    elif system == "dts":
        code, _, branch = lowered.partition(" ")
        branch = branch.split(":")[0].strip()
        keys = ([f"dts:{code} {branch}"] if branch else []) + [f"dts:{code}"] + ([f"dts:{branch}"] if branch else [])
    else:
        name = re.split(r"[(<]", lowered, maxsplit=1)[0].strip()
        # the seed spells BSON's null type `null value`: dbt reads a bare `null` in a seed as NULL
        keys = [f"{system}:{'null value' if name == 'null' else name}"]
    is_null_value = bool(set(re.split(r"[\s:(<]+", lowered)) & _NULL_VALUE.get(system, set()))
    return {"keys": keys, "precision": precision, "scale": scale, "is_null_value": is_null_value}


RESULT_ARROW_TYPE = pa.struct([("keys", pa.list_(pa.string())), ("precision", pa.int32()), ("scale", pa.int32()),
                               ("is_null_value", pa.bool_())])


def _type_keys_row(system: str | None, vendor_type: str | None) -> dict[str, Any]:
    """type_keys, with a row of NULLs (not a NULL struct) for a type that has no keys."""
    return type_keys(system, vendor_type) or dict.fromkeys(RESULT_ARROW_TYPE.names)


type_keys_arrays = arrow.row_wise(_type_keys_row, RESULT_ARROW_TYPE)


def register(spark: SparkSession) -> None:
    type_keys_arrays.register(spark, "cdc_type_keys")
