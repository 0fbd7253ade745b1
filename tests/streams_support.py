"""What the generated-stream tests share: landing rendered records per format, and
comparing a gold state with the reference fold."""

from __future__ import annotations

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
