"""Print query results: a text table for people, JSON for scripts."""

from __future__ import annotations

import datetime as dt
import decimal
import json
from collections.abc import Sequence
from typing import Any


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
