"""A build killed with `kill -9` at any point is recovered by building again.

One state folder, resumed step by step: `cdc build` runs in its own process group and
is killed (SIGKILL to the whole group: Python, the JVM and its Python workers, as a
power loss would) as soon as the folder of a table it creates appears: mid-silver (the
decoded table) and during the creation of two gold tables (the history, then the current
rows folded from it). Each killed build leaves a table folder that the metastore does
not know.
The next build must carry on from there, and the final gold must equal the gold of an
uninterrupted build (`--full-refresh` of the same bronze).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from process_support import home_env

PROJECT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SAMPLES = PROJECT / "samples"

# the table folders whose appearance triggers the kill, in build order (each run is
# killed at a table no earlier run reached)
KILL_POINTS = [
    "silver.db/int_cdc__decoded",
    "gold.db/cdc_row_history",
    "gold.db/cdc_current_rows",
]

# what the final process does: build, dump gold, rebuild from bronze, dump again
FINAL = """
import json
from cdclake.lake import Lake

QUERIES = {
    "current": "select table_id, row_key, row, row_count, last_op, sort_key from gold.cdc_current_rows",
    "history": "select table_id, row_key, row, row_count, op, valid_from, valid_to, is_current, is_deleted "
               "from gold.cdc_row_history",
    "status": "select topic, table_id, changes, inserts, updates, deletes, ddl_events, rejects, duplicates "
              "from gold.cdc_sync_status",
}

def dump(lake):
    return {name: sorted(json.dumps(r, sort_keys=True, default=str) for r in lake.rows(q))
            for name, q in QUERIES.items()}

lake = Lake()
lake.build("--exclude", "resource_type:test")
resumed = dump(lake)
lake.build("--full-refresh", "--exclude", "resource_type:test")
print(json.dumps({"resumed": resumed, "uninterrupted": dump(lake)}))
"""


def _build_killed_at(home: Path, folder: str) -> bool:
    """Build seeds and models (the data tests would only add time before the kill) and kill
    the process group when `folder` appears; True when the kill came while the build ran
    (False: the build ended first)."""
    target = home / "warehouse" / folder
    if target.exists():
        return False
    build = subprocess.Popen([str(BIN / "cdc"), "build", "--exclude", "resource_type:test"], cwd=PROJECT,
                             env=home_env(home), start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 600
    while build.poll() is None and time.monotonic() < deadline:
        if target.exists():
            os.killpg(build.pid, signal.SIGKILL)
            build.wait()
            return True
        time.sleep(0.02)
    if build.poll() is None:
        os.killpg(build.pid, signal.SIGKILL)
    return False


@pytest.fixture(scope="module")
def crashed_home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[str, bool]]]:
    home = tmp_path_factory.mktemp("crash-home")
    landed = subprocess.run(
        [str(BIN / "cdc"), "land", str(SAMPLES / "debezium_inventory.jsonl"), str(SAMPLES / "shareplex_shop.jsonl"),
         str(SAMPLES / "drs_jsonc_shop.jsonl")],
        cwd=PROJECT, env=home_env(home), capture_output=True, text=True, timeout=600)
    assert landed.returncode == 0, landed.stderr[-2000:]
    kills = []
    for folder in KILL_POINTS:
        kills.append((folder, _build_killed_at(home, folder)))
    return home, kills


def test_every_kill_hit_a_running_build(crashed_home):
    _, kills = crashed_home
    assert all(hit for _, hit in kills), kills


def test_building_again_recovers_the_gold_of_an_uninterrupted_build(crashed_home):
    home, _ = crashed_home
    done = subprocess.run([sys.executable, "-c", FINAL], cwd=PROJECT, env=home_env(home), capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["resumed"]["current"], "no rows in gold"
    assert result["resumed"] == result["uninterrupted"]
    # the last killed build's leftover was named when it was removed
    assert "left by an interrupted build" in done.stderr
