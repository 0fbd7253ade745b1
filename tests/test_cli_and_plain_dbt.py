"""The commands as a user types them, each in its own process and state folder:
`cdc land`, plain `dbt build` / `dbt docs generate` (the dbt plugin gives them the Spark
session and the UDFs), `cdc sql --json`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from process_support import home_env

PROJECT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def state(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("cli-state")


def run(state: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(BIN / args[0]), *args[1:]], cwd=PROJECT, env=home_env(state), text=True,
                          capture_output=True, timeout=600)
    if check and done.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {done.returncode}:\n"
                             f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def test_plain_dbt_builds_with_the_udfs_and_cdc_sql_prints_json(state):
    landed = run(state, "cdc", "land", str(PROJECT / "samples" / "canal_inventory.ndjson"),
                 "--topic", "demo.canal.inventory")
    assert "landed 11 records" in landed.stdout
    # cdc_ddl_events calls the Python UDF cdc_parse_ddl: plain dbt only works if the plugin registered it
    run(state, "dbt", "build", "--profiles-dir", "profiles")
    out = run(state, "cdc", "sql", "--json",
              "select ddl_action, ddl_table_name from silver.cdc_ddl_events")
    assert json.loads(out.stdout) == [{"ddl_action": "CREATE", "ddl_table_name": "user02"}]
    rows = json.loads(run(state, "cdc", "sql", "--json",
                          "select row from gold.cdc_current_rows where row_key = '[\"106\"]'").stdout)
    assert rows == [{"row": {"id": "106", "name": "hammer", "description": "18oz carpenter hammer",
                             "weight": "1.0"}}]


def test_plain_dbt_docs_generate_lists_the_models(state):
    run(state, "dbt", "docs", "generate", "--profiles-dir", "profiles")
    catalog = json.loads((state / "dbt-target" / "catalog.json").read_text(encoding="utf-8"))
    assert "model.cdc_lakehouse.cdc_current_rows" in catalog["nodes"]
    assert (state / "dbt-target" / "index.html").stat().st_size > 10_000


def test_cdc_land_explains_a_missing_topic(state, tmp_path):
    plain = tmp_path / "plain.txt"
    plain.write_text('{"type": "INSERT"}\n', encoding="utf-8")
    done = run(state, "cdc", "land", str(plain), check=False)
    assert done.returncode == 2
    assert "give the topic with --topic" in done.stderr


def test_cdc_sql_prints_a_table(state):
    out = run(state, "cdc", "sql", "select 1 as n, map('a', 'b') as m").stdout
    assert "| n | m          |" in out and '| 1 | {"a": "b"} |' in out and "(1 row)" in out
