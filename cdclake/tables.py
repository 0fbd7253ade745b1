"""Print query results: a text table for people, JSON for scripts."""

from __future__ import annotations

import datetime as dt
import decimal
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType


def _holds_timestamp(data_type: DataType) -> bool:
    """Whether a value of `data_type` is or holds a timestamp."""
    from pyspark.sql.types import ArrayType, MapType, StructType, TimestampNTZType, TimestampType

    if isinstance(data_type, (TimestampType, TimestampNTZType)):
        return True
    if isinstance(data_type, ArrayType):
        return _holds_timestamp(data_type.elementType)
    if isinstance(data_type, MapType):
        return _holds_timestamp(data_type.keyType) or _holds_timestamp(data_type.valueType)
    if isinstance(data_type, StructType):
        return any(_holds_timestamp(field.dataType) for field in data_type.fields)
    return False


def _timestamps_as_text(column: Column, data_type: DataType) -> Column:
    """`column` with every timestamp in it, nested ones too, as ISO-8601 text in the
    session's time zone (microseconds only when there are some, as Python's isoformat)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import ArrayType, MapType, StructType

    if not _holds_timestamp(data_type):
        return column
    if isinstance(data_type, ArrayType):
        element = data_type.elementType
        return F.transform(column, lambda item: _timestamps_as_text(item, element))
    if isinstance(data_type, MapType):
        key_type, value_type = data_type.keyType, data_type.valueType
        if _holds_timestamp(key_type):
            column = F.transform_keys(column, lambda key, _: _timestamps_as_text(key, key_type))
        if _holds_timestamp(value_type):
            column = F.transform_values(column, lambda _, value: _timestamps_as_text(value, value_type))
        return column
    if isinstance(data_type, StructType):
        struct = F.struct(*[_timestamps_as_text(column.getField(field.name), field.dataType).alias(field.name)
                            for field in data_type.fields])
        return F.when(column.isNull(), F.lit(None)).otherwise(struct)
    return (F.when(F.date_format(column, "SSSSSS") == "000000", F.date_format(column, "yyyy-MM-dd'T'HH:mm:ss"))
            .otherwise(F.date_format(column, "yyyy-MM-dd'T'HH:mm:ss.SSSSSS")))


def displayable(frame: DataFrame) -> DataFrame:
    """`frame` with its timestamps as text, rendered by Spark in the session's time zone
    (the profile's UTC), before Python sees them. PySpark turns a collected timestamp
    into a datetime in the time zone of the Python process: on a machine in Asia/Shanghai
    `cdc sql` showed the lake's 22:13:20 as 06:13:20 of the next day, and a timestamp on
    the first day of year 1 failed with "year 0 is out of range"."""
    fields = frame.schema.fields
    if not any(_holds_timestamp(field.dataType) for field in fields):
        return frame
    # by position: a result may repeat a column name, or have one with a dot in it
    positional = frame.toDF(*(f"c{n}" for n in range(len(fields))))
    return positional.select(*[_timestamps_as_text(positional[f"c{n}"], field.dataType).alias(field.name)
                               for n, field in enumerate(fields)])


def to_jsonable(value: Any) -> Any:
    """Spark values to JSON values: maps and rows as objects, decimals as exact text."""
    if hasattr(value, "asDict"):
        return {k: to_jsonable(v) for k, v in value.asDict(recursive=False).items()}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        import base64

        return base64.b64encode(bytes(value)).decode("ascii")
    return value


def rows_to_json(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    return json.dumps([dict(zip(columns, (to_jsonable(v) for v in row), strict=True)) for row in rows],
                      ensure_ascii=False)


def _cell(value: Any, width: int) -> str:
    if value is None:
        text = "NULL"
    elif isinstance(value, (dict, list, tuple)) or hasattr(value, "asDict"):
        text = json.dumps(to_jsonable(value), ensure_ascii=False)
    else:
        text = str(to_jsonable(value))
    text = text.replace("\n", "\\n")
    return text if len(text) <= width else text[: width - 1] + "…"


def format_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], max_width: int = 60) -> str:
    cells = [[_cell(v, max_width) for v in row] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    line = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    out = [line, "| " + " | ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)) + " |", line]
    out += ["| " + " | ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) + " |" for r in cells]
    out.append(line)
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(out)
