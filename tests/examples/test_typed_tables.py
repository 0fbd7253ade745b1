"""Typed gold tables (issue 5): schema history from message types and DDL, the type map,
the one-line macros cdc_table / cdc_table_history / cdc_table_as_of, cast failures.

One Canal JSON stream of a table that gains a column by DDL mid-stream, later drops
another and then changes a column's type, landed in two batches (the first ends right
after the ADD COLUMN), is checked against a plain Python fold of the same events.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import random
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

TOPIC = "demo.canal.typed"
TABLE = "shop.items"
T0 = 1_714_521_600_000  # 2024-05-01 00:00:00 UTC, ms
STEP = 1000

BASE_TYPES = {"id": "int(11)", "name": "varchar(20)", "price": "decimal(10,2)", "qty": "int(11)",
              "created": "datetime(3)"}
DDL_ADD = "ALTER TABLE shop.items ADD COLUMN note varchar(32) AFTER created"
DDL_DROP = "ALTER TABLE `shop`.`items` DROP COLUMN qty"
DDL_MODIFY = "ALTER TABLE shop.items MODIFY COLUMN price decimal(14,4) NOT NULL"
DDL_BAD = "ALTER TABLE shop.items FROBNICATE THE WIDGETS"
Row = dict[str, Any]


def _types(phase: int) -> dict[str, str]:
    types = dict(BASE_TYPES)
    if phase >= 2:
        types["note"] = "varchar(32)"
    if phase >= 3:
        del types["qty"]
    if phase >= 4:
        types["price"] = "decimal(14,4)"
    return types


def _row(rng: random.Random, key: int, phase: int) -> Row:
    row: Row = {"id": str(key), "name": rng.choice(["ära", "bolt", "nut 𝄞", "o'brien", None]),
                "price": f"{rng.randint(0, 99_999_999)}.{rng.randint(0, 99):02d}" if phase < 4
                else f"{rng.randint(0, 9_999_999_999)}.{rng.randint(0, 9999):04d}",
                "qty": str(rng.randint(-5, 500)),
                "created": (f"2024-0{rng.randint(1, 4)}-1{rng.randint(0, 9)} "
                            f"0{rng.randint(0, 9)}:15:0{rng.randint(0, 9)}.250")}
    if phase >= 2:
        row["note"] = rng.choice(["first", "", None, "λ"])
    if phase >= 3:
        del row["qty"]
    return row


def stream(seed: int = 5) -> list[dict[str, Any]]:
    """Canal messages: 4 phases of 60 changes over 25 keys, a DDL between phases."""
    rng = random.Random(seed)
    live: dict[int, Row] = {}
    messages: list[dict[str, Any]] = []

    def emit(kind: str, data: list[Row] | None, old: list[Row] | None = None, sql: str = "",
             phase: int = 1) -> None:
        seq = len(messages) + 1
        messages.append({"id": seq, "database": "shop", "table": "items", "type": kind,
                         "isDdl": data is None, "es": T0 + seq * STEP, "ts": T0 + seq * STEP + 7,
                         "pkNames": ["id"], "sql": sql, "data": data, "old": old,
                         "mysqlType": None if data is None else _types(phase),
                         "sqlType": None if data is None else {c: 12 for c in _types(phase)}})

    # a row written once, before the drop of qty: it keeps its qty in gold
    live[99] = _row(rng, 99, 1)
    emit("INSERT", [live[99]])
    for phase in (1, 2, 3, 4):
        for _ in range(60):
            key = rng.randint(1, 25)
            if key not in live:
                live[key] = _row(rng, key, phase)
                emit("INSERT", [live[key]], phase=phase)
            elif rng.random() < 0.15:
                emit("DELETE", [live.pop(key)], phase=phase)
            else:
                before, live[key] = live[key], _row(rng, key, phase)
                changed = {c: v for c, v in before.items() if live[key].get(c) != v}
                emit("UPDATE", [live[key]], [changed], phase=phase)
        if phase == 1:
            emit("ALTER", None, sql=DDL_ADD)
        elif phase == 2:
            emit("ALTER", None, sql=DDL_DROP)
            emit("ALTER", None, sql=DDL_BAD)
        elif phase == 3:
            emit("ALTER", None, sql=DDL_MODIFY)
        live = {k: {c: v for c, v in r.items() if c != "qty"} for k, r in live.items()} if phase == 2 else live
    # a value that does not fit its column's type (the source sent text in a datetime column)
    victim = min(live)
    bad = dict(live[victim], created="not a date")
    emit("UPDATE", [bad], [{"created": live[victim]["created"]}], phase=4)
    return messages


def fold(messages: list[dict[str, Any]], until_ms: int | None = None) -> dict[str, Row]:
    """The rows of the table after the changes up to `until_ms` (all by default)."""
    rows: dict[str, Row] = {}
    for m in messages:
        if m["data"] is None or (until_ms is not None and m["es"] > until_ms):
            continue
        for row in m["data"]:
            if m["type"] == "DELETE":
                rows.pop(row["id"], None)
            else:
                rows[row["id"]] = dict(row)
    return rows


# key columns first, then the others by first appearance and name (no CREATE TABLE was seen)
FINAL_COLUMNS = [("id", "int"), ("created", "timestamp_ntz"), ("name", "string"), ("price", "decimal(14,4)"),
                 ("note", "string")]


def typed(row: Row, columns: list[tuple[str, str]] = FINAL_COLUMNS) -> Row:
    """The row as the typed models should show it: each value cast to its column's type."""
    out: Row = {}
    for name, spark_type in columns:
        text = row.get(name)
        if text is None:
            out[name] = None
        elif spark_type == "int":
            out[name] = int(text)
        elif spark_type.startswith("decimal"):
            out[name] = Decimal(text).quantize(Decimal("0.0001"))
        elif spark_type == "timestamp_ntz":
            try:
                out[name] = dt.datetime.fromisoformat(text)
            except ValueError:
                out[name] = None
        else:
            out[name] = text
    return out


def by_id(rows: list[Row]) -> dict[int, Row]:
    return {r["id"]: r for r in rows}


# a table without a primary key: gold keeps a multiset; the typed table repeats its rows
BAG = [("INSERT", [{"tag": "a", "n": "1"}, {"tag": "a", "n": "1"}, {"tag": "b", "n": "2"}]),
       ("DELETE", [{"tag": "b", "n": "2"}])]


def bag_records() -> list[str]:
    return [json.dumps({"topic": "demo.canal.tags", "partition": 0, "offset": i, "value": json.dumps(
        {"id": i + 1, "database": "shop", "table": "tags", "type": kind, "isDdl": False, "es": T0 + i * STEP,
         "ts": T0 + i * STEP, "pkNames": [], "sql": "", "data": data, "old": None,
         "mysqlType": {"tag": "varchar(8)", "n": "int(11)"}})}) for i, (kind, data) in enumerate(BAG)]


def land_examples(lake, tmp: Path) -> Iterator[None]:
    """Two batches, the first ending right after the ADD COLUMN (tests/examples/conftest.py)."""
    messages = stream()
    cut = next(i for i, m in enumerate(messages) if m["sql"] == DDL_ADD) + 1
    batches = [messages[:cut], messages[cut:]]
    after_first: dict[str, Any] = {}
    for n, batch in enumerate(batches):
        path = tmp / f"batch{n}.jsonl"
        path.write_text("\n".join([json.dumps({"topic": TOPIC, "partition": 0, "offset": i + (cut if n else 0),
                                               "value": json.dumps(m)}) for i, m in enumerate(batch)]
                                   + (bag_records() if n else [])))
        lake.land([path], declared_format="canal_json")
        yield
        if n == 0:
            after_first = {
                "columns": lake.rows(f"""select column_name, table_type, column_position from silver.cdc_table_columns
                                        where table_id = '{TABLE}' and is_current_type and not is_dropped
                                        order by column_position is null, column_position"""),
                "typed": lake.rows(lake.compile_inline(f"{{{{ cdc_table('{TABLE}') }}}}")),
            }
    return lake, messages, after_first


def test_a_column_added_by_ddl_appears_before_any_message_carries_it(built):
    _, messages, first = built
    assert [(c["column_name"], c["table_type"]) for c in first["columns"]] == [
        ("id", "int"), ("created", "timestamp_ntz"), ("name", "string"), ("price", "decimal(10,2)"),
        ("qty", "int"), ("note", "string")]
    rows = first["typed"]
    assert rows and all(r["note"] is None for r in rows)
    cut = next(i for i, m in enumerate(messages) if m["sql"] == DDL_ADD) + 1
    expected = fold(messages[:cut])
    assert by_id(rows)[int(next(iter(expected)))]["qty"] == int(next(iter(expected.values()))["qty"])


def test_schema_history_records_types_added_dropped_and_changed_columns(built):
    lake, _, _ = built
    history = lake.rows(f"""select column_name, vendor_type, spark_type, is_current_type, table_type,
                                   is_dropped, seen_in_ddl, changes_seen > 0 as in_messages
                            from silver.cdc_table_columns where table_id = '{TABLE}'""")
    got = {(h["column_name"], h["vendor_type"]): h for h in history}
    assert got[("price", "decimal(10,2)")]["is_current_type"] is False
    assert got[("price", "decimal(10,2)")]["spark_type"] == "decimal(10,2)"
    assert got[("price", "decimal(14,4)")]["table_type"] == "decimal(14,4)"
    assert got[("price", "decimal(14,4)")]["in_messages"] and got[("price", "DECIMAL(14, 4)")]["seen_in_ddl"]
    assert all(h["is_dropped"] for h in history if h["column_name"] == "qty")
    assert not any(h["is_dropped"] for h in history if h["column_name"] != "qty")
    assert got[("note", "VARCHAR(32)")]["seen_in_ddl"] and got[("note", "varchar(32)")]["in_messages"]
    assert got[("created", "datetime(3)")]["spark_type"] == "timestamp_ntz"


# the moments the as-of test looks at: halfway between the changes of these sequence numbers
AS_OF_SEQUENCES = (30, 130, 200)


def _as_of(seq: int) -> tuple[int, str]:
    """(milliseconds since the epoch, timestamp text) of the moment after change `seq`."""
    moment_ms = T0 + seq * STEP + STEP // 2
    return moment_ms, dt.datetime.fromtimestamp(moment_ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


@pytest.fixture(scope="module")
def typed_sql(built) -> dict[str, str]:
    """The SQL of the typed macros these tests query, after the last build, by one dbt
    compile."""
    lake, _, _ = built
    expressions = {"current": f"cdc_table('{TABLE}')", "keep dropped": f"cdc_table('{TABLE}', keep_dropped=true)",
                   "history": f"cdc_table_history('{TABLE}')", "keyless": "cdc_table('shop.tags')"}
    for seq in AS_OF_SEQUENCES:
        expressions[f"as of {seq}"] = f"cdc_table_as_of('{TABLE}', \"timestamp'{_as_of(seq)[1]}'\")"
    return lake.compile_many(expressions)


def test_current_typed_table_equals_the_python_fold(built, typed_sql):
    lake, messages, _ = built
    rows = lake.rows(typed_sql["current"])
    assert list(rows[0])[:5] == [c for c, _ in FINAL_COLUMNS]
    assert "qty" not in rows[0]
    got = {r["id"]: {c: r[c] for c, _ in FINAL_COLUMNS} for r in rows}
    expected = {int(k): typed(v) for k, v in fold(messages).items()}
    assert got == expected


def test_dropped_columns_can_be_kept(built, typed_sql):
    lake, messages, _ = built
    rows = lake.rows(typed_sql["keep dropped"])
    assert "qty" in rows[0]
    # a row last written before the drop still has its qty; one written after has none
    last_write = {}
    for m in messages:
        for r in m["data"] or []:
            last_write[r["id"]] = "qty" in r
    got = by_id(rows)
    assert got[99]["qty"] == int(messages[0]["data"][0]["qty"])
    assert all(got[i]["qty"] is None for i in got if not last_write[str(i)])


def test_as_of_at_three_moments_equals_the_python_fold(built, typed_sql):
    lake, messages, _ = built
    for seq in AS_OF_SEQUENCES:
        moment_ms, moment = _as_of(seq)
        rows = lake.rows(typed_sql[f"as of {seq}"])
        got = {r["id"]: {c: r[c] for c, _ in FINAL_COLUMNS} for r in rows}
        expected = {int(k): typed(v) for k, v in fold(messages, until_ms=moment_ms).items()}
        assert got == expected, f"as of {moment}"


def test_history_is_scd2_with_typed_columns(built, typed_sql):
    lake, messages, _ = built
    rows = lake.rows(typed_sql["history"])
    versions = sum(len(m["data"] or []) for m in messages)
    assert len(rows) == versions
    current = [r for r in rows if r["is_current"] and not r["is_deleted"]]
    assert {r["id"] for r in current} == {int(k) for k in fold(messages)}
    assert all(r["valid_to"] is None for r in rows if r["is_current"])
    assert all(r["valid_to"] is not None and r["valid_to"] >= r["valid_from"] for r in rows if not r["is_current"])


def test_a_value_that_does_not_fit_is_null_and_counted(built):
    lake, messages, _ = built
    failures = lake.rows(f"""select column_name, table_type, cast_failures, example_value, values_checked
                             from gold.cdc_cast_failures where table_id = '{TABLE}' and cast_failures > 0""")
    assert failures == [{"column_name": "created", "table_type": "timestamp_ntz", "cast_failures": 1,
                         "example_value": "not a date", "values_checked": len(fold(messages)) }]


def test_a_table_without_a_key_shows_each_copy_of_a_row(built, typed_sql):
    lake, _, _ = built
    rows = lake.rows(typed_sql["keyless"])
    assert sorted((r["tag"], r["n"]) for r in rows) == [("a", 1), ("a", 1)]


def test_unparseable_ddl_is_kept_with_a_reason(built):
    lake, _, _ = built
    (bad,) = lake.rows(f"select ddl_action, ddl_parse_error from silver.cdc_ddl_events where ddl_text = '{DDL_BAD}'")
    assert bad["ddl_parse_error"]
    ddl = lake.rows(f"select count(*) as n from silver.cdc_ddl_events where table_id = '{TABLE}'")
    assert ddl == [{"n": 4}]


VENDOR_TYPES = Path(__file__).resolve().parents[1] / "data" / "vendor_types.csv"


def test_every_vendor_type_of_the_documents_maps_to_the_expected_spark_type(built):
    """tests/data/vendor_types.csv: every type in ../shared/vendor-docs and vectors (and in
    FORMATS.md), with where it was found, mapped through the seed and UDF as the models do."""
    lake, _, _ = built
    with VENDOR_TYPES.open(newline="") as f:
        cases = list(csv.DictReader(f))
    values = ",\n".join(
        "(" + ", ".join("'" + c[k].replace("\\", "\\\\").replace("'", "\\'") + "'"
                        for k in ("type_system", "vendor_type", "expected_spark_type")) + ")"
        for c in cases)
    sql = lake.compile_inline(
        "with vendor_types as (select * from values " + values
        + " as t(type_system, vendor_type, expected_spark_type)),\n"
        + "resolved as ({{ cdc_resolve_types('vendor_types') }})\n"
        + "select type_system, vendor_type, expected_spark_type, spark_type, type_key from resolved")
    rows = lake.rows(sql)
    assert len(rows) == len(cases) > 200
    wrong = [r for r in rows if r["spark_type"] != r["expected_spark_type"]]
    assert wrong == []
    assert all(r["type_key"] for r in rows), [r for r in rows if not r["type_key"]]


def test_an_unknown_type_maps_to_string_with_a_note(built):
    lake, _, _ = built
    sql = lake.compile_inline(
        "with vendor_types as (select * from values ('mysql', 'hyperloglog(12)'), ('oracle', 'SDO_GEOMETRY'),"
        " ('connect', 'int64 com.example.Mystery'), ('postgres', 'numeric(50,2)')"
        " as t(type_system, vendor_type)),\n"
        "resolved as ({{ cdc_resolve_types('vendor_types') }})\n"
        "select vendor_type, spark_type, type_key, type_note from resolved order by vendor_type")
    got = {r["vendor_type"]: r for r in lake.rows(sql)}
    assert got["hyperloglog(12)"]["spark_type"] == "string" and got["hyperloglog(12)"]["type_key"] is None
    assert "unknown type" in got["SDO_GEOMETRY"]["type_note"]
    # a Connect type whose semantic name is unknown falls back to its plain type
    assert got["int64 com.example.Mystery"]["spark_type"] == "bigint"
    assert got["numeric(50,2)"]["spark_type"] == "string" and "38 digits" in got["numeric(50,2)"]["type_note"]
