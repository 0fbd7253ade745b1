"""DataWorks `ddlMeta` -> JSON, with javaobj-py3 (UDF `cdc_decode_ddlmeta(b64)`).

`ddlMeta` is the base64 of a Java-serialized `com.alibaba.di.plugin.center.meta.DDLMeta`
(fields `String ddlText`, `SQLStatement statement`; the statement is an Alibaba fastsql
AST, laid out like the open-source Druid parser). Java serialization carries every
class descriptor, so javaobj reads it without the Alibaba classes. The result is:

`{"ddlText", "statementClass", "dbType", "table",
  "items": [{"itemClass", "columns": [{"name", "type", "dataTypeClass"}]}], "error"}`

`items` are the statement's ALTER TABLE items (add / drop / modify column ...) or, for a
CREATE TABLE, its column definitions as one item. Input that is not base64, not a Java
serialization stream or not a DDLMeta yields `error` saying why; the function never raises.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from udfs import arrow

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DDLMETA_CLASS = "com.alibaba.di.plugin.center.meta.DDLMeta"
_MAGIC = b"\xac\xed\x00\x05"


def _class(obj: Any) -> str | None:
    desc = getattr(obj, "classdesc", None)
    return getattr(desc, "name", None)


def _simple(name: str | None) -> str | None:
    return None if name is None else name.rsplit(".", 1)[-1]


def _fields(obj: Any) -> dict[str, Any]:
    """The fields of a JavaInstance over its whole class hierarchy (subclass wins)."""
    out: dict[str, Any] = {}
    for fields in getattr(obj, "field_data", {}).values():
        for field, value in fields.items():
            out.setdefault(field.name, value)
    return out


def _items(value: Any) -> list[Any]:
    """Elements of a java.util.List (javaobj keeps ArrayList elements in annotations)."""
    if value is None:
        return []
    if isinstance(value, list):
        return list(value)
    for annotation in getattr(value, "annotations", {}).values():
        return [e for e in annotation if not isinstance(e, bytes)]
    return []


def _text(value: Any) -> str | None:
    """A Java string, enum constant, boxed number or fastsql name/literal as text."""
    if value is None:
        return None
    if isinstance(value, (str, int, float, bool)):
        return str(value)
    if hasattr(value, "constant") and hasattr(value, "value"):  # JavaEnum
        return str(value.value)
    fields = _fields(value)
    if "owner" in fields and "name" in fields:  # SQLPropertyExpr owner.name
        owner = _text(fields["owner"])
        return f"{owner}.{_text(fields['name'])}" if owner else _text(fields["name"])
    for name in ("name", "number", "text", "value"):
        if name in fields:
            return _text(fields[name])
    return str(value) if type(value).__name__ == "JavaString" else None


def _data_type(value: Any) -> str | None:
    if value is None:
        return None
    fields = _fields(value)
    name = _text(fields.get("name"))
    args = [a for a in (_text(x) for x in _items(fields.get("arguments"))) if a is not None]
    return f"{name}({','.join(args)})" if name and args else name


def _column(value: Any) -> dict[str, str | None]:
    """A SQLColumnDefinition (name + dataType) or a bare column name expression."""
    fields = _fields(value)
    if "dataType" in fields:
        return {"name": _text(fields.get("name")), "type": _data_type(fields["dataType"]),
                "dataTypeClass": _simple(_class(fields["dataType"]))}
    return {"name": _text(value), "type": None, "dataTypeClass": None}


def _item(value: Any) -> dict[str, Any]:
    fields = _fields(value)
    columns = _items(fields.get("columns"))
    for single in ("column", "columnDefinition"):
        if fields.get(single) is not None:
            columns.append(fields[single])
    return {"itemClass": _simple(_class(value)), "columns": [_column(c) for c in columns]}


def _table(statement_fields: dict[str, Any]) -> str | None:
    source = statement_fields.get("tableSource")
    if source is None:
        sources = _items(statement_fields.get("tableSources"))
        source = sources[0] if sources else None
    if source is None:
        return _text(statement_fields.get("name"))
    return _text(_fields(source).get("expr"))


def _summary(root: Any) -> dict[str, Any]:
    fields = _fields(root)
    statement = fields.get("statement")
    stmt_fields = _fields(statement)
    items = [_item(i) for i in _items(stmt_fields.get("items"))]
    definitions = [e for e in _items(stmt_fields.get("tableElementList")) if "dataType" in _fields(e)]
    if definitions:
        items.append({"itemClass": "tableElementList", "columns": [_column(c) for c in definitions]})
    return {
        "ddlText": _text(fields.get("ddlText")),
        "statementClass": _class(statement),
        "dbType": _text(stmt_fields.get("dbType")),
        "table": _table(stmt_fields),
        "items": items,
        "error": None,
    }


def _failure(reason: str) -> dict[str, Any]:
    return {"ddlText": None, "statementClass": None, "dbType": None, "table": None, "items": [],
            "error": reason}


def decode_ddlmeta(b64: str | None) -> str | None:
    """The JSON summary of one base64 ddlMeta (NULL for NULL); never raises."""
    if b64 is None:
        return None
    try:
        data = base64.b64decode("".join(b64.split()), validate=True)
    except (binascii.Error, ValueError) as exc:
        return json.dumps(_failure(f"not base64 ({exc})"))
    if not data.startswith(_MAGIC):
        return json.dumps(_failure(f"not a Java serialization stream (starts with {data[:4].hex() or 'nothing'})"))
    try:
        import javaobj.v2 as javaobj

        root = javaobj.loads(data)
    except Exception as exc:  # javaobj raises many error types on bad streams; all mean "unreadable"
        return json.dumps(_failure(f"unreadable Java serialization ({type(exc).__name__}: {str(exc)[:200]})"))
    if _class(root) != DDLMETA_CLASS:
        return json.dumps(_failure(f"the serialized object is {_class(root) or type(root).__name__}, "
                                   f"not {DDLMETA_CLASS}"))
    try:
        return json.dumps(_summary(root), ensure_ascii=False)
    except Exception as exc:  # an unexpected object layout (another DataWorks release)
        return json.dumps(_failure(f"unexpected DDLMeta layout ({type(exc).__name__}: {str(exc)[:200]})"))


decode_ddlmeta_arrays = arrow.row_wise(decode_ddlmeta, pa.string())


def register(spark: SparkSession) -> None:
    decode_ddlmeta_arrays.register(spark, "cdc_decode_ddlmeta")
