"""The Canal vectors of the Apache Flink, Paimon and Flink CDC test suites fold to the
final states their expected.json files state. Where we deliberately accept more than a
peer (DTS `INIT` rows), the test says so."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

PEERS = Path(__file__).resolve().parent / "vectors" / "peer-test-suites"
FLINK = json.loads((PEERS / "flink" / "expected.json").read_text(encoding="utf-8"))
PAIMON = json.loads((PEERS / "paimon" / "expected.json").read_text(encoding="utf-8"))
FLINK_CDC = json.loads((PEERS / "flink-cdc" / "expected.json").read_text(encoding="utf-8"))


def flink_vector(name: str) -> dict:
    return next(v for v in FLINK["vectors"] if v["file"] == name)


def products(lake, topic: str, table_like: str = "%") -> list[dict]:
    """Gold rows of `topic` as Flink's typed rows (id INT, weight FLOAT), sorted by id."""
    rows = lake.rows("""select c.row from gold.cdc_current_rows c
                        join (select distinct table_id from silver.cdc_changes where topic = :topic) t
                        on c.table_id = t.table_id where c.table_id like :t""", topic=topic, t=table_like)
    return sorted(({"id": int(r["row"]["id"]), "name": r["row"]["name"], "description": r["row"]["description"],
                    "weight": round(float(r["row"]["weight"]), 5)} for r in rows), key=lambda r: r["id"])


def expected(rows: list[dict]) -> list[dict]:
    return sorted(({**r, "weight": round(float(r["weight"]), 5)} for r in rows), key=lambda r: r["id"])


@pytest.fixture(scope="module")
def landed(lake):
    lake.reset()
    for name in ("canal-data.txt", "canal-data-filter-table.txt", "canal-data-with-init.txt"):
        lake.land([PEERS / "flink" / name], topic=f"flink.{name}", declared_format="canal_json")
    lake.land([PEERS / "flink-cdc" / "mysqlToKafka" / "canal-json.txt.records.jsonl"],
              topic="flinkcdc.canal", declared_format="canal_json")
    lake.build()
    return lake


def test_flink_canal_data(landed):
    assert products(landed, "flink.canal-data.txt") == expected(flink_vector("canal-data.txt")["expected_final_state"])


def test_flink_canal_filter_tables(landed):
    """Flink keeps only ^my.* / ^prod.* (whole name); we keep every table apart, so compare mydb.product."""
    assert products(landed, "flink.canal-data-filter-table.txt", "mydb.product") == \
        expected(flink_vector("canal-data-filter-table.txt")["expected_final_state"])
    tables = {r["table_id"] for r in landed.rows(
        "select distinct table_id from silver.cdc_changes where topic = 'flink.canal-data-filter-table.txt'")}
    assert tables == {"mydb.product", "mydb.orders", "mydb.project"}


def test_flink_canal_with_init_we_accept_more(landed):
    """Flink 2.3 rejects this file ('Unknown "type" value "INIT"'); we decode INIT (DTS full
    load) as SNAPSHOT rows, so the final state is the INIT rows plus the later changes —
    Flink's own state with ignore-parse-errors lacks the snapshot rows 104, 105, 108, 109."""
    observed = flink_vector("canal-data-with-init.txt")["observed_flink_2_3_0"]["with_ignore_parse_errors"]
    ours = products(landed, "flink.canal-data-with-init.txt")
    assert {r["id"] for r in ours} == {101, 104, 105, 106, 107, 108, 109, 110}
    assert [r for r in ours if r["id"] in {101, 106, 107, 110}] == expected(observed["final_state"])
    assert next(r for r in ours if r["id"] == 104) == {"id": 104, "name": "hammer",
                                                      "description": "12oz carpenter's hammer", "weight": 0.75}
    ops = landed.rows("select op, count(*) as n from silver.cdc_changes "
                      "where topic = 'flink.canal-data-with-init.txt' group by op order by op")
    assert {r["op"]: r["n"] for r in ops}["SNAPSHOT"] == 9


def test_flink_cdc_canal_json_with_typed_values(landed):
    """Flink CDC writes typed JSON (numbers as JSON numbers) and a full `old` image."""
    assert products(landed, "flinkcdc.canal", "%.products") == expected(FLINK_CDC["expected_final_state_products"]["rows"])


def _paimon_rows(lake, columns: list[str]) -> list[str]:
    """Gold of the whole topic (Paimon syncs every table of it into one), printed like Paimon's Row."""
    out = []
    for r in lake.rows("select row from gold.cdc_current_rows"):
        row = r["row"]
        out.append("+I[" + ", ".join(_paimon_value(row.get(c)) for c in columns) + "]")
    return sorted(out)


def _paimon_value(value: str | None) -> str:
    return "NULL" if value is None else value


def _land_paimon_files(lake, scenario: str):
    spec = next(s for s in PAIMON["scenarios"] if s["name"] == scenario)
    lake.reset()
    for number, item in enumerate(spec["files_in_order"], start=1):
        lake.land([PEERS / "paimon" / item["records_file"]], topic=f"paimon.{scenario}", declared_format="canal_json")
        lake.build()
        yield number, next((c for c in spec["checkpoints"] if c["after_file"] == number), None)


def test_paimon_canal_schema_evolution(lake):
    """Checked after every file, as Paimon's IT case does: ALTER TABLE messages between the
    rows, columns added and widened. Binary columns (v4) hold base64 of the bytes in our
    gold where Paimon prints the byte list. The two source tables have disjoint keys, so
    the union of our two gold tables is Paimon's one synced table."""
    for number, check in _land_paimon_files(lake, "canal-schemaevolution"):
        want = sorted(_paimon_bytes_to_base64(row) for row in check["rows"])
        assert _paimon_rows(lake, check["columns"]) == want, f"after file {number}"
    assert lake.rows("select count(*) as n from silver.cdc_ddl_events where ddl_action = 'ALTER'")[0]["n"] == 16


def test_paimon_canal_event_keeps_tables_apart(lake):
    """We differ from Paimon on purpose: its test syncs the messages of three source tables
    (event, schema_evolution_1, schema_evolution_2) into ONE table keyed by _id, so a DELETE
    of schema_evolution_1 removes event's row 1. We keep each source table apart: the
    delete of a row schema_evolution_1 never had changes nothing, and the update of
    schema_evolution_2's unseen row 2 creates it there."""
    for _ in _land_paimon_files(lake, "canal-event"):
        pass
    state = {(r["table_id"], r["row_key"]): r["row"]["v1"] for r in lake.rows(
        "select table_id, row_key, row from gold.cdc_current_rows")}
    assert state == {
        ("paimon_sync_table.event", '["1"]'): "one",
        ("paimon_sync_table.event", '["2"]'): "two",
        ("paimon_sync_table.event", '["4"]'): "four",
        ("paimon_sync_table.schema_evolution_1", '["9"]'): "nine",
        ("paimon_sync_table.schema_evolution_2", '["2"]'): "second",
    }


def _paimon_bytes_to_base64(row: str) -> str:
    """Rewrite Paimon's `[110, 105, ...]` byte lists in a printed row as base64 text."""
    inner = row.removeprefix("+I[").removesuffix("]")
    inner = re.sub(r"\[(\d+(?:, \d+)*)\]",
                   lambda m: base64.b64encode(bytes(int(b) for b in m.group(1).split(", "))).decode(), inner)
    return "+I[" + inner + "]"
