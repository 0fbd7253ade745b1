"""What the generated-stream tests share: landing rendered records per format, and
comparing a gold state with the reference fold."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import synth

State = dict[tuple[str, str], tuple[dict, int]]


def land_all(lake, tmp: Path, name: str, batches: dict[str, list[synth.Record]]) -> None:
    """One landing batch per format, its records declared as that format."""
    for format_id, recs in batches.items():
        path = tmp / f"{name}.{format_id}.jsonl"
        synth.write_records(path, recs)
        lake.land([path], declared_format=format_id)


def assert_same_state(expected: State, actual: State, label: str = "") -> None:
    """The same keys ((table_id, row_key)) with the same (row, row_count)."""
    missing = sorted(set(expected) - set(actual))[:5]
    extra = sorted(set(actual) - set(expected))[:5]
    assert not missing and not extra, f"{label}missing keys {missing}, unexpected keys {extra}"
    wrong = [(k, expected[k], actual[k]) for k in expected if expected[k] != actual[k]][:3]
    assert not wrong, f"{label}rows differ (key, expected, actual): {wrong}"


def rows_as_multisets(rows: list[tuple[str, dict, int]], drop: str | None = None) -> dict[str, list[str]]:
    """table_id -> sorted list of its rows as JSON, each repeated row_count times, without
    the column `drop`. Shareplex gold is keyed by ROWID, the reference fold by the source key
    (or, unkeyed, by the whole row with a count): the same table content reads the same here."""
    tables: dict[str, Counter[str]] = {}
    for table_id, row, count in rows:
        content = {c: v for c, v in row.items() if c != drop}
        tables.setdefault(table_id, Counter())[json.dumps(content, sort_keys=True, ensure_ascii=False)] += count
    return {t: sorted(counter.elements()) for t, counter in tables.items()}


def state_as_multisets(state: State, drop: str | None = None) -> dict[str, list[str]]:
    """rows_as_multisets of a state ((table_id, row_key) -> (row, row_count))."""
    return rows_as_multisets([(table_id, row, count) for (table_id, _), (row, count) in state.items()], drop)
