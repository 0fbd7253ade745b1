"""DRS JSON for DDS (MongoDB): the two Python UDFs of format drs_mongo_json.

`cdc_decode_mongo_change(value, where)` reads one message's `value` and `where` (Mongo
shell syntax, see udfs/mongo_shell.py) and returns JSON:

    {"kind": "document" | "operators",
     "document": the value as relaxed Extended JSON; for operators, the update operators
                 with the `_id` of `where` added,
     "fields": {top-level field: canonical text} (operators: `_id` and the top-level
               fields `$set` gives whole),
     "types": {top-level field: type name}, "id": canonical text of `_id`, "error": ...}

`cdc_fold_documents(events)` folds the changes of one document in order, applying update
operators the way MongoDB does, and returns the canonical fields after each change. Gold
calls it only for documents that got an operator update; the others fold in SQL. Events
text that is not such events (gold never sends one) folds to NULL.

Supported update operators: $set, $unset, $inc, $mul, $min, $max, $rename, $push and
$addToSet (with $each), $pop, $setOnInsert (no effect on an update); dotted paths (`a.b`,
`tags.1`). The oplog DRS reads records updates as $set/$unset of the resulting values, so
the others appear only if a producer writes them. An operator this fold does not know,
and positional paths (`a.$`, `a.$[]`), make the message a reject at decode time. A step
that cannot apply to the document gold holds (e.g. $inc of a text) leaves that field as
it was; MongoDB would have refused the update, so this happens only when gold's document
is not the source's (changes missing upstream).
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from udfs import arrow
from udfs.mongo_shell import MongoSyntaxError, Number, bson_decimal, canonical, dumps, parse, type_name

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

OPERATORS = ("$set", "$unset", "$inc", "$mul", "$min", "$max", "$rename", "$push", "$addToSet", "$pop",
             "$setOnInsert")
Document = dict[str, Any]
_ARRAY_INDEX = re.compile(r"[0-9]{1,8}")
# the largest array index a path can name: a MongoDB document holds at most 16 MiB, and an
# array element takes at least 3 bytes of it (type byte, index digits, NUL)
_MAX_INDEX = 16 * 1024 * 1024 // 3


class PatchError(ValueError):
    pass


# --- decoding one message ----------------------------------------------------------------

def _parse_part(name: str, text: str | None) -> Any:
    if text is None or not text.strip():
        return None
    try:
        return parse(text)
    except MongoSyntaxError as exc:
        raise PatchError(f"{name} is not valid Mongo shell syntax: {exc}") from None


def _check_operators(ops: Document) -> None:
    for op, spec in ops.items():
        if op not in OPERATORS:
            raise PatchError(f"update operator {op} is not supported")
        if not isinstance(spec, dict):
            raise PatchError(f"{op} needs a document of field paths")
        for path in spec:
            parts = path.split(".")
            if any(p == "" or p.startswith("$") for p in parts):
                raise PatchError(f"{op} path {path!r} is positional or empty; it cannot be applied without the query")
        if op == "$rename" and not all(isinstance(v, str) for v in spec.values()):
            raise PatchError("$rename needs new field names as strings")


def _fields(doc: Document) -> tuple[dict[str, str | None], dict[str, str]]:
    return {k: canonical(v) for k, v in doc.items()}, {k: type_name(v) for k, v in doc.items()}


def decode_change(value: str | None, where: str | None) -> Document:
    """The message's value and where as JSON-ready parts; `error` says why they cannot be read."""
    try:
        doc = _parse_part("value", value)
        condition = _parse_part("where", where)
        if not isinstance(doc, dict):
            raise PatchError("value is not a document" if doc is not None else "no value")
        if condition is not None and not isinstance(condition, dict):
            raise PatchError("where is not a document")
        where_id = (condition or {}).get("_id")
        operator_keys = [k for k in doc if k.startswith("$")]
        if operator_keys and len(operator_keys) != len(doc):
            raise PatchError("value mixes update operators and fields")
        if operator_keys:
            _check_operators(doc)
            # without where._id, "id" stays null: the decoder rejects the update (or names
            # the INSERT / DELETE whose value is operators)
            top_set = {k: v for k, v in doc.get("$set", {}).items() if "." not in k}
            fields, types = _fields({"_id": where_id, **top_set} if where_id is not None else top_set)
            return {"kind": "operators", "document": dumps({"_id": where_id, **doc}), "fields": fields,
                    "types": types, "id": None if where_id is None else canonical(where_id), "error": None}
        if "_id" not in doc:
            if where_id is None:
                raise PatchError("the document has no _id, and where names none")
            doc = {"_id": where_id, **doc}
        fields, types = _fields(doc)
        return {"kind": "document", "document": dumps(doc), "fields": fields, "types": types,
                "id": canonical(doc["_id"]), "error": None}
    except PatchError as exc:
        return {"kind": None, "document": None, "fields": None, "types": None, "id": None, "error": str(exc)}


def _decode_change_text(value: str | None, where: str | None) -> str:
    return json.dumps(decode_change(value, where), ensure_ascii=False)


decode_change_arrays = arrow.row_wise(_decode_change_text, pa.string())


# --- applying update operators -------------------------------------------------------------

def _load(text: str) -> Any:
    """Relaxed Extended JSON text back to parsed values, numbers kept as their text."""
    return json.loads(text, parse_int=Number, parse_float=Number,
                      parse_constant=lambda c: {"$numberDouble": c})


def _decimal(value: Any) -> Decimal | None:
    """The value of a number (None for NaN, Infinity and what no BSON number holds)."""
    if isinstance(value, Number):
        return bson_decimal(value)
    if isinstance(value, dict) and len(value) == 1:
        inner = value.get("$numberDecimal", value.get("$numberLong", value.get("$numberInt")))
        if isinstance(inner, str):
            return bson_decimal(inner)
    return None


def _number_like(template: Any, result: Decimal) -> Any:
    text = format(result, "f")
    if isinstance(template, dict) and "$numberDecimal" in template:
        return {"$numberDecimal": text}
    return Number(text)


def _walk(doc: Document, path: str, create: bool) -> tuple[Any, str | int] | None:
    """The container holding the last part of `path`, and that part (an index in arrays)."""
    parts = path.split(".")
    node: Any = doc
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        key: str | int = part
        if isinstance(node, list):
            if not _ARRAY_INDEX.fullmatch(part) or int(part) > _MAX_INDEX:
                raise PatchError(f"path {path!r} indexes an array with {part!r}")
            key = int(part)
        elif not isinstance(node, dict):
            raise PatchError(f"path {path!r} goes through a value that is not a document")
        if last:
            return node, key
        if isinstance(node, list):
            assert isinstance(key, int)
            if key >= len(node) or node[key] is None:
                if not create:
                    return None
                node.extend([None] * (key + 1 - len(node)))
                node[key] = {}
            node = node[key]
        else:
            if key not in node or node[key] is None:
                if not create:
                    return None
                node[key] = {}
            node = node[key]
    raise AssertionError("unreachable")


def _get(doc: Document, path: str) -> tuple[bool, Any]:
    found = _walk(doc, path, create=False)
    if found is None:
        return False, None
    node, key = found
    if isinstance(node, list):
        assert isinstance(key, int)
        return (key < len(node)), (node[key] if key < len(node) else None)
    return (key in node), node.get(key)


def _set(doc: Document, path: str, value: Any) -> None:
    found = _walk(doc, path, create=True)
    assert found is not None
    node, key = found
    if isinstance(node, list):
        assert isinstance(key, int)
        node.extend([None] * (key + 1 - len(node)))
    node[key] = value


def _unset(doc: Document, path: str) -> None:
    found = _walk(doc, path, create=False)
    if found is None:
        return
    node, key = found
    if isinstance(node, list):
        assert isinstance(key, int)
        if key < len(node):
            node[key] = None  # MongoDB keeps the array's length
    else:
        node.pop(key, None)


def _arithmetic(doc: Document, path: str, operand: Any, op: str) -> None:
    amount = _decimal(operand)
    if amount is None:
        raise PatchError(f"{op} of a non-number")
    present, current = _get(doc, path)
    if not present or current is None:
        _set(doc, path, operand if op == "$inc" else _number_like(operand, Decimal(0)))
        return
    base = _decimal(current)
    if base is None:
        raise PatchError(f"{op} on a field that is not a number")
    _set(doc, path, _number_like(current if isinstance(current, dict) else operand,
                                 base + amount if op == "$inc" else base * amount))


def _order_key(value: Any) -> tuple[int, Any] | None:
    number = _decimal(value)
    if number is not None:
        return 0, number
    if isinstance(value, str):
        return 1, value
    if isinstance(value, dict) and "$date" in value:
        return 2, str(value["$date"])
    return None


def _extreme(doc: Document, path: str, operand: Any, op: str) -> None:
    present, current = _get(doc, path)
    if not present:
        _set(doc, path, operand)
        return
    new_key, old_key = _order_key(operand), _order_key(current)
    if new_key is None or old_key is None or new_key[0] != old_key[0]:
        raise PatchError(f"{op} compares values of different kinds")
    if (new_key[1] < old_key[1]) if op == "$min" else (new_key[1] > old_key[1]):
        _set(doc, path, operand)


def _array_add(doc: Document, path: str, operand: Any, op: str) -> None:
    items = operand["$each"] if isinstance(operand, dict) and "$each" in operand else [operand]
    if not isinstance(items, list):
        raise PatchError(f"{op} $each needs an array")
    present, current = _get(doc, path)
    if not present or current is None:
        current = []
    if not isinstance(current, list):
        raise PatchError(f"{op} on a field that is not an array")
    current = list(current)
    for item in items:
        if op == "$push" or dumps(item) not in {dumps(x) for x in current}:
            current.append(item)
    _set(doc, path, current)


def _apply_one(doc: Document, op: str, path: str, operand: Any) -> None:
    if op == "$set":
        _set(doc, path, operand)
    elif op == "$unset":
        _unset(doc, path)
    elif op in ("$inc", "$mul"):
        _arithmetic(doc, path, operand, op)
    elif op in ("$min", "$max"):
        _extreme(doc, path, operand, op)
    elif op == "$rename":
        present, current = _get(doc, path)
        if present:
            _unset(doc, path)
            _set(doc, str(operand), current)
    elif op in ("$push", "$addToSet"):
        _array_add(doc, path, operand, op)
    elif op == "$pop":
        present, current = _get(doc, path)
        if present and isinstance(current, list) and current:
            _set(doc, path, current[1:] if _decimal(operand) == -1 else current[:-1])


def apply_operators(doc: Document, ops: Document) -> Document:
    """`doc` after the update operators `ops` (a new document; `doc` is left alone)."""
    result = _load(dumps(doc))
    for op, spec in ops.items():
        if op in ("_id", "$setOnInsert"):
            continue
        for path, operand in spec.items():
            try:
                _apply_one(result, op, path, operand)
            except PatchError:
                continue  # documented: a step that cannot apply leaves the field as it was
    return result


def _event_document(text: Any, patch: bool) -> Document:
    """The JSON object an event's `document` holds; for a patch, update operators `decode_change` accepts."""
    doc = _load(text) if isinstance(text, str) else None
    if not isinstance(doc, dict):
        raise PatchError("an event's document is not a JSON object")
    if patch:
        _check_operators({k: v for k, v in doc.items() if k != "_id"})
    return doc


def fold_documents(events: list[Document]) -> list[dict[str, str | None] | None]:
    """Canonical fields of the document after each event (None: no document).

    An event is {"action": upsert | merge | patch | delete | truncate, "document": JSON text
    (upsert: the whole document; patch: operators plus `_id`), "image": canonical fields}.
    A patch of a document gold has not seen starts from `{_id}` (like a partial update of
    an unknown row in the other formats). An event not of this form raises PatchError."""
    doc: Document | None = None
    out: list[dict[str, str | None] | None] = []
    for event in events:
        if not isinstance(event, dict):
            raise PatchError("an event is not a JSON object")
        action, text, image = event.get("action"), event.get("document"), event.get("image")
        if action in ("delete", "truncate"):
            doc = None
        elif action == "patch" and text is not None:
            ops = _event_document(text, patch=True)
            doc = apply_operators(doc if doc is not None else {"_id": ops.get("_id")}, ops)
        elif text is not None:
            doc = _event_document(text, patch=False)
        elif image is not None:  # a change that came without its document: its fields as text
            if not isinstance(image, dict) or not all(v is None or isinstance(v, str) for v in image.values()):
                raise PatchError("an event's image is not a map of text")
            base = dict(doc or {}) if action == "merge" else {}
            base.update(image)
            doc = base
        out.append(None if doc is None else {k: canonical(v) for k, v in doc.items()})
    return out


def _fold(events: str) -> str | None:
    """The folded documents of one key's events text, as JSON; None when the text is not the
    events gold sends (not JSON, not a list of events, nested too deeply to read)."""
    try:
        parsed = _load(events)  # numbers as text: json.loads refuses an int of more than 4300 digits
        if not isinstance(parsed, list):
            return None
        # ASCII: a \u escape of half a surrogate pair stays an escape (Arrow text cannot hold it)
        return json.dumps(fold_documents(parsed))
    except (json.JSONDecodeError, PatchError, RecursionError):
        return None


def _fold_text(events: str | None) -> str | None:
    return None if events is None else _fold(events)


fold_documents_arrays = arrow.row_wise(_fold_text, pa.string())


def register(spark: SparkSession) -> None:
    decode_change_arrays.register(spark, "cdc_decode_mongo_change")
    fold_documents_arrays.register(spark, "cdc_fold_documents")
