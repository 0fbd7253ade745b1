"""The project's generic data tests (data-tests/generic), compiled by dbt and run by Spark
over a VALUES relation: no build."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cdclake.lake import Lake

ROWS = """(select * from values
    (1, 'x', 'it''s', 1),
    (cast(null as int), 'y', 'it''s', 2),
    (3, 'z', 'no', 3),
    (4, cast(null as string), 'no', 4),
    (cast(null as int), 'w', cast(null as string), 5)
  as t(a, b, c, d)) t"""


def column_values(lake: Lake, not_null: list[str], accepted_values: dict[str, list[str]]) -> list[dict]:
    """The failure rows of column_values over ROWS."""
    sql = lake.compile_inline(
        "{{ test_column_values(model=" + repr(ROWS) + f", not_null={not_null!r}, "
        f"accepted_values={accepted_values!r}) }}}}")
    return sorted(lake.rows(sql), key=lambda row: row["column_name"])


def test_column_values_names_each_failed_check_once(lake: Lake):
    failures = column_values(lake, ["a", "b"], {"b": ["x", "y"], "c": ["it's", "no"]})
    assert failures == [
        {"column_name": "a", "expectation": "not null", "failing_rows": 2, "example_value": None},
        {"column_name": "b", "expectation": "not null", "failing_rows": 1, "example_value": None},
        # NULL is accepted, as in dbt's accepted_values; the example is the least failing value
        {"column_name": "b", "expectation": "one of x, y", "failing_rows": 2, "example_value": "w"},
    ]


def test_column_values_passes_when_every_check_holds(lake: Lake):
    assert column_values(lake, ["d"], {"c": ["it's", "no"]}) == []
    assert column_values(lake, [], {"b": ["x", "y", "z", "w"]}) == []


def test_column_values_needs_a_check(lake: Lake):
    """A column_values without a column is an error when dbt parses it, with the reason in
    dbt's log."""
    log = Path(os.environ["DBT_LOG_PATH"]) / "dbt.log"
    logged = log.stat().st_size
    with pytest.raises(RuntimeError, match="dbt compile --inline failed"):
        column_values(lake, [], {})
    with log.open(encoding="utf-8") as text:
        text.seek(logged)
        assert "no not_null or accepted_values columns" in text.read()
