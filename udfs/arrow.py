"""The UDFs as Arrow UDFs (`arrow_udf`, pyspark 4.1+) over functions of one row.

Spark hands a UDF a batch of rows as pyarrow arrays; `row_wise` runs a function on each
row's values and gives back one array. No pandas: a pandas UDF imports pandas into every
Python worker (about 43 MiB of memory each, and its import at every worker's start) for
functions that only loop over values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

OverArrays = Callable[..., pa.Array]


@dataclass(frozen=True)
class ArrowFunction:
    """A function over arrays and the Arrow type of the array it returns."""

    over_arrays: OverArrays
    result: pa.DataType

    def register(self, spark: SparkSession, name: str) -> None:
        """Register it as the SQL function `name`, returning the Spark type of `result`."""
        from pyspark.sql.functions import arrow_udf
        from pyspark.sql.pandas.types import from_arrow_type

        # pyspark's stubs type only arrow_udf's functionType= forms, not the type-hint form
        # used here (with functionType, pyspark warns that type hints are preferred, at
        # every session)
        spark.udf.register(name, arrow_udf(self.over_arrays, from_arrow_type(self.result)))  # type: ignore[call-overload]


def row_wise(function: Callable[..., Any], result: pa.DataType) -> ArrowFunction:
    """`function` over arrays: row i of the result is `function` of row i of each array,
    as an array of `result` type (None is NULL). Its type hints (arrays to an array) make
    it a scalar Arrow UDF."""

    def over_arrays(*columns: pa.Array) -> pa.Array:
        rows = zip(*(column.to_pylist() for column in columns), strict=True)
        return pa.array([function(*row) for row in rows], result)

    return ArrowFunction(over_arrays, result)
