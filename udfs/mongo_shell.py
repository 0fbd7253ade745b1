"""Mongo shell syntax -> JSON, for the `value` and `where` of DRS JSON for DDS.

DRS writes documents as the mongo shell prints them, not as JSON:
`{"_id": ObjectId("64650cf6..."), "c1": "baz"}`. `parse` reads that syntax (also the
mongosh spelling: unquoted keys, single quotes, `Long(..)`, `Decimal128(..)`) into Python
values; `to_json` writes them as relaxed MongoDB Extended JSON v2, with numbers kept
exactly as written:

| shell | JSON |
|---|---|
| `ObjectId("h")` | `{"$oid": "h"}` |
| `ISODate("..")`, `new Date(ms or "..")` | `{"$date": "yyyy-mm-ddThh:mm:ss.fffZ"}` (UTC) |
| `NumberLong(n)`, `NumberInt(n)`, `Long`, `Int32`, `Double` | the number |
| `NumberDecimal("d")`, `Decimal128("d")` | `{"$numberDecimal": "d"}` |
| `Timestamp(t, i)`, `Timestamp({t, i})` | `{"$timestamp": {"t": t, "i": i}}` |
| `BinData(s, "b64")`, `HexData(s, "hex")` | `{"$binary": {"base64": .., "subType": "0s"}}` |
| `UUID("..")` | `{"$uuid": "8-4-4-4-12 lower-case hex"}` |
| `MinKey`, `MaxKey` (with or without `()`) | `{"$minKey": 1}`, `{"$maxKey": 1}` |
| `DBRef("c", id)` | `{"$ref": "c", "$id": id}` |
| `/re/flags` | `{"$regularExpression": {"pattern", "options"}}` |
| `NaN`, `Infinity`, `-Infinity` | `{"$numberDouble": "NaN"}` ... |
| `undefined` | `null` |

Words such as `ObjectId(` inside string literals are text: the parser reads tokens, it
does not rewrite the text with patterns. What no BSON document holds is a syntax error:
nesting deeper than 200 levels, a `\\u` escape that is half of a surrogate pair, a date
outside years 1 to 9999, a BinData subtype outside 0 to 255. `canonical` gives the canonical
text of one value (DESIGN §4.3): strings as they are, numbers as plain digits (as written
when beyond Decimal128's exponents), ObjectId as its hex, dates as ISO-8601 UTC, binary as
base64, UUID as its text, documents and arrays as compact JSON.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["MongoSyntaxError", "Number", "bson_decimal", "canonical", "dumps", "parse", "to_json", "type_name"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_SHELL_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_HEX24 = re.compile(r"[0-9a-fA-F]{24}")
_REGEX_FLAGS = re.compile(r"[a-z]*")
# documents, arrays and constructor calls nested deeper than this are refused: twice the
# 100 levels of nesting MongoDB allows a document (update operators add levels)
_MAX_DEPTH = 200
# a BSON number's exponents: Decimal128 holds 1E-6176 to 9.99..E+6144 (a double less)
_MAX_EXPONENT = 6176
# the epoch milliseconds a datetime holds (years 1 to 9999)
_MIN_MILLIS = -62_135_596_800_000
_MAX_MILLIS = 253_402_300_799_999


class MongoSyntaxError(ValueError):
    pass


class Number(str):
    """A number as its JSON literal text (exact: never through float)."""


def bson_decimal(text: str) -> Decimal | None:
    """The value of a number's text when a BSON number can hold it (finite, its exponent
    within Decimal128's); None for anything else (not a number, NaN, 1e999999999 ...)."""
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    return value if value.is_finite() and abs(value.adjusted()) <= _MAX_EXPONENT else None


def _number(text: str) -> Any:
    """The JSON form of a shell number literal: a Number, or $numberDouble for NaN/Infinity."""
    text = text.lstrip("+")
    if text == "NaN":
        return {"$numberDouble": "NaN"}
    if text in ("Infinity", "-Infinity"):
        return {"$numberDouble": text}
    if _JSON_NUMBER.fullmatch(text):
        return Number(text)
    value = bson_decimal(text)  # shell spellings JSON lacks: "1.", ".5", "01"
    if value is None:
        raise MongoSyntaxError(f"not a number a BSON value holds: {text!r}")
    return Number(format(value, "f"))


def _iso(moment: datetime) -> str:
    moment = moment.astimezone(UTC)
    # BSON dates hold milliseconds; the shell always prints three digits
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{moment.microsecond // 1000:03d}Z"


def _date_from_text(text: str) -> str:
    candidate = text.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", candidate):
        candidate += "T00:00:00Z"
    candidate = re.sub(r"([+-]\d{2})(\d{2})$", r"\1:\2", candidate)  # +0800 -> +08:00
    try:
        moment = datetime.fromisoformat(candidate.replace("Z", "+00:00"))
    except ValueError as exc:
        raise MongoSyntaxError(f"not an ISO-8601 date: {text!r}") from exc
    if moment.tzinfo is None:  # the shell reads a zone-less ISODate as UTC
        moment = moment.replace(tzinfo=UTC)
    try:
        return _iso(moment)
    except OverflowError as exc:  # in UTC before year 1 or after 9999
        raise MongoSyntaxError(f"date out of range: {text!r}") from exc


def _date_from_millis(millis: str) -> str:
    try:
        value = Decimal(millis)
    except InvalidOperation as exc:
        raise MongoSyntaxError(f"not epoch milliseconds: {millis!r}") from exc
    if not _MIN_MILLIS <= value <= _MAX_MILLIS:
        raise MongoSyntaxError(f"epoch milliseconds out of range: {millis!r}")
    return _iso(_EPOCH + timedelta(milliseconds=int(value)))


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.depth = 0

    # -- lexing helpers ------------------------------------------------------------------
    def error(self, message: str) -> MongoSyntaxError:
        return MongoSyntaxError(f"{message} at character {self.pos + 1}")

    def skip(self) -> None:
        text, n = self.text, len(self.text)
        while self.pos < n:
            if text[self.pos].isspace():
                self.pos += 1
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = n if end < 0 else end + 1
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.error("unclosed comment")
                self.pos = end + 2
            else:
                break

    @contextmanager
    def nested(self) -> Iterator[None]:
        """One level deeper (a document, array or constructor call); refused past _MAX_DEPTH."""
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise self.error(f"nested more than {_MAX_DEPTH} levels deep")
        yield
        self.depth -= 1

    def peek(self) -> str:
        self.skip()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def unexpected(self, expected: str) -> MongoSyntaxError:
        found = repr(self.text[self.pos]) if self.peek() else "the end of the text"
        return self.error(f"expected {expected}, found {found}")

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise self.unexpected(repr(char))
        self.pos += 1

    def identifier(self) -> str | None:
        self.skip()
        match = _IDENTIFIER.match(self.text, self.pos)
        if not match:
            return None
        self.pos = match.end()
        return match.group()

    def string(self) -> str:
        quote = self.text[self.pos]
        self.pos += 1
        out: list[str] = []
        text, n = self.text, len(self.text)
        while True:
            if self.pos >= n:
                raise self.error("unterminated string")
            char = text[self.pos]
            if char == quote:
                self.pos += 1
                return self.joined(out)
            if char == "\\":
                self.pos += 1
                if self.pos >= n:
                    raise self.error("unterminated string")
                esc = text[self.pos]
                if esc == "u":
                    code = text[self.pos + 1:self.pos + 5]
                    if not re.fullmatch(r"[0-9a-fA-F]{4}", code):
                        raise self.error("bad \\u escape")
                    out.append(chr(int(code, 16)))
                    self.pos += 5
                    continue
                if esc == "x":
                    code = text[self.pos + 1:self.pos + 3]
                    if not re.fullmatch(r"[0-9a-fA-F]{2}", code):
                        raise self.error("bad \\x escape")
                    out.append(chr(int(code, 16)))
                    self.pos += 3
                    continue
                out.append({"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "0": "\0",
                            "v": "\v"}.get(esc, esc))
                self.pos += 1
                continue
            out.append(char)
            self.pos += 1

    def joined(self, chars: list[str]) -> str:
        """A string's characters; the \\u escapes of a surrogate pair make one character."""
        text = "".join(chars)
        try:
            return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
        except UnicodeDecodeError:
            raise self.error("a \\u escape is half of a surrogate pair") from None

    # -- grammar -------------------------------------------------------------------------
    def document(self) -> dict[str, Any]:
        self.expect("{")
        doc: dict[str, Any] = {}
        if self.peek() == "}":
            self.pos += 1
            return doc
        while True:
            char = self.peek()
            key: str | None
            if char in ("'", '"'):
                key = self.string()
            else:
                key = self.identifier()
                if key is None:
                    raise self.error("expected a field name")
            self.expect(":")
            doc[key] = self.value()
            char = self.peek()
            if char == ",":
                self.pos += 1
                if self.peek() == "}":  # trailing comma
                    self.pos += 1
                    return doc
                continue
            if char == "}":
                self.pos += 1
                return doc
            raise self.unexpected("',' or '}'")

    def array(self) -> list[Any]:
        self.expect("[")
        items: list[Any] = []
        if self.peek() == "]":
            self.pos += 1
            return items
        while True:
            items.append(self.value())
            char = self.peek()
            if char == ",":
                self.pos += 1
                if self.peek() == "]":
                    self.pos += 1
                    return items
                continue
            if char == "]":
                self.pos += 1
                return items
            raise self.unexpected("',' or ']'")

    def value(self) -> Any:
        char = self.peek()
        if char == "{":
            with self.nested():
                return self.document()
        if char == "[":
            with self.nested():
                return self.array()
        if char in ("'", '"'):
            return self.string()
        if char == "/":
            return self.regex()
        match = _SHELL_NUMBER.match(self.text, self.pos)
        if match:
            self.pos = match.end()
            return _number(match.group())
        if char == "-" and self.text.startswith("-Infinity", self.pos):
            self.pos += len("-Infinity")
            return _number("-Infinity")
        start = self.pos
        name = self.identifier()
        if name is None:
            raise self.error("expected a value" if char else "unexpected end of text")
        if name == "new":
            name = self.identifier() or ""
        if name in ("true", "false"):
            return name == "true"
        if name in ("null", "undefined"):
            return None
        if name in ("NaN", "Infinity"):
            return _number(name)
        if name in ("MinKey", "MaxKey"):
            if self.peek() == "(":
                self.pos += 1
                self.expect(")")
            return {"$minKey": 1} if name == "MinKey" else {"$maxKey": 1}
        if self.peek() != "(":
            self.pos = start
            raise self.error(f"unknown word {name!r}")
        self.pos += 1
        with self.nested():
            args = self.arguments()
        return self.construct(name, args, start)

    def arguments(self) -> list[Any]:
        args: list[Any] = []
        if self.peek() == ")":
            self.pos += 1
            return args
        while True:
            args.append(self.value())
            char = self.peek()
            if char == ",":
                self.pos += 1
                continue
            if char == ")":
                self.pos += 1
                return args
            raise self.unexpected("',' or ')'")

    def regex(self) -> dict[str, Any]:
        self.pos += 1
        out: list[str] = []
        text, n = self.text, len(self.text)
        while True:
            if self.pos >= n:
                raise self.error("unterminated regular expression")
            char = text[self.pos]
            if char == "\\" and self.pos + 1 < n:
                out.append(text[self.pos:self.pos + 2])
                self.pos += 2
                continue
            self.pos += 1
            if char == "/":
                break
            out.append(char)
        flags = _REGEX_FLAGS.match(text, self.pos).group()  # type: ignore[union-attr]
        self.pos += len(flags)
        return {"$regularExpression": {"pattern": "".join(out), "options": "".join(sorted(flags))}}

    def construct(self, name: str, args: list[Any], start: int) -> Any:
        def arg(index: int, kind: type | tuple[type, ...]) -> Any:
            if len(args) <= index or not isinstance(args[index], kind):
                self.pos = start
                raise self.error(f"bad arguments to {name}(...)")
            return args[index]

        if name == "ObjectId":
            if not args:
                raise self.error("ObjectId() without a value")
            hex_id = arg(0, str)
            if not _HEX24.fullmatch(hex_id):
                self.pos = start
                raise self.error(f"ObjectId needs 24 hex digits, got {hex_id!r}")
            return {"$oid": hex_id.lower()}
        if name in ("ISODate", "Date"):
            if not args:
                raise self.error(f"{name}() without a value (the current time is not data)")
            first = args[0]
            if isinstance(first, Number):
                return {"$date": _date_from_millis(first)}
            return {"$date": _date_from_text(arg(0, str))}
        if name in ("NumberLong", "NumberInt", "Long", "Int32", "Double", "NumberDouble"):
            raw = args[0] if args else None
            if isinstance(raw, str) and not isinstance(raw, Number):
                raw = raw.strip()
                if not _SHELL_NUMBER.fullmatch(raw):
                    self.pos = start
                    raise self.error(f"{name} of a non-number {raw!r}")
                return _number(raw)
            return arg(0, (Number, dict))
        if name in ("NumberDecimal", "Decimal128"):
            raw = args[0] if args else None
            if not isinstance(raw, str):
                self.pos = start
                raise self.error(f"bad arguments to {name}(...)")
            text = raw.strip()
            try:
                Decimal(text)
            except InvalidOperation:
                self.pos = start
                raise self.error(f"{name} of a non-number {text!r}") from None
            return {"$numberDecimal": text}
        if name == "Timestamp":
            if len(args) == 1 and isinstance(args[0], dict):
                seconds, increment = args[0].get("t"), args[0].get("i")
            else:
                seconds, increment = [*args, None, None][:2]
            if not isinstance(seconds, Number) or not isinstance(increment, Number):
                self.pos = start
                raise self.error("Timestamp needs (seconds, increment)")
            return {"$timestamp": {"t": seconds, "i": increment}}
        if name in ("BinData", "HexData"):
            sub_type = Decimal(arg(0, Number))
            if not 0 <= sub_type <= 255:
                self.pos = start
                raise self.error(f"{name} subtype {args[0]} is not 0 to 255")
            payload = arg(1, str)
            try:
                raw = bytes.fromhex(payload) if name == "HexData" else base64.b64decode(payload, validate=True)
            except (ValueError, binascii.Error):
                self.pos = start
                raise self.error(f"{name} payload is not {'hex' if name == 'HexData' else 'base64'}") from None
            return {"$binary": {"base64": base64.b64encode(raw).decode("ascii"),
                                "subType": format(int(sub_type), "02x")}}
        if name == "UUID":
            hex_text = arg(0, str).replace("-", "").lower()
            if not re.fullmatch(r"[0-9a-f]{32}", hex_text):
                self.pos = start
                raise self.error(f"UUID needs 32 hex digits, got {args[0]!r}")
            h = hex_text
            return {"$uuid": f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"}
        if name == "DBRef":
            ref = {"$ref": arg(0, str), "$id": args[1] if len(args) > 1 else None}
            if len(args) > 2:
                ref["$db"] = arg(2, str)
            return ref
        self.pos = start
        raise self.error(f"unknown constructor {name}(...)")


def parse(text: str) -> Any:
    """The value one shell text holds (a document, usually). Raises MongoSyntaxError."""
    parser = _Parser(text)
    value = parser.value()
    if parser.peek():
        raise parser.error("unexpected text after the value")
    return value


def dumps(value: Any) -> str:
    """Compact JSON of a parsed value, numbers as written."""
    if isinstance(value, Number):
        return str(value)
    if value is None or isinstance(value, (bool, str)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + dumps(v) for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


to_json = dumps


def _wrapper(value: Any) -> str | None:
    """The Extended JSON wrapper key of a typed value ($oid, $date, ...), else None."""
    if isinstance(value, dict) and value and next(iter(value)).startswith("$") and len(value) <= 3:
        key = next(iter(value))
        if key in ("$oid", "$date", "$numberDecimal", "$numberDouble", "$numberLong", "$numberInt",
                   "$binary", "$uuid", "$timestamp", "$minKey", "$maxKey", "$regularExpression", "$ref"):
            return key
    return None


_TYPE_NAMES = {"$oid": "objectId", "$date": "date", "$numberDecimal": "decimal", "$numberDouble": "double",
               "$numberLong": "long", "$numberInt": "int", "$binary": "binData", "$uuid": "uuid",
               "$timestamp": "timestamp", "$minKey": "minKey", "$maxKey": "maxKey",
               "$regularExpression": "regex", "$ref": "dbPointer"}


def type_name(value: Any) -> str:
    """The BSON-like type name of a parsed value (for silver column_types)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, Number):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    wrapper = _wrapper(value)
    return _TYPE_NAMES[wrapper] if wrapper else "object"


def _plain(number: str) -> str:
    """A number without exponent; as written when no BSON number holds it (1e999999999 would
    be a billion digits)."""
    if "e" not in number.lower():
        return number
    value = bson_decimal(number)
    return number if value is None else format(value, "f")


def canonical(value: Any) -> str | None:
    """Canonical text of one top-level field value (None for null)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Number):
        return _plain(value)
    if isinstance(value, str):
        return value
    wrapper = _wrapper(value)
    if wrapper in ("$oid", "$date", "$uuid"):
        return str(value[wrapper])
    if wrapper in ("$numberDecimal", "$numberLong", "$numberInt"):
        text = str(value[wrapper])
        return _plain(text) if _JSON_NUMBER.fullmatch(text) else text
    if wrapper == "$numberDouble":
        return str(value[wrapper])
    if wrapper == "$binary" and isinstance(value["$binary"], dict) and "base64" in value["$binary"]:
        return str(value["$binary"]["base64"])
    return dumps(value)
