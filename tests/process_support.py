"""What the tests that run `cdc`, `dbt` or Python in a process of their own share."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cdclake.paths import scratch_dir
from cdclake.runtime import SHORT_RUN_JAVA_OPTIONS

if TYPE_CHECKING:
    from cdclake.lake import Lake


def dbt_target(home: Path) -> Path:
    """dbt's target folder (manifest, run results) of a child process with state in `home`."""
    return home / "dbt-target"


# The JVM options of the child processes: a short run's (cdclake.runtime), C1 alone. A
# user home (two `cdc land`, two killed builds, a plain `dbt build`) took 295 CPU-s instead
# of 391 with C2 (203 s instead of 227 s of wall time). So did the `cdc run` of
# tests/kafka_run.py that runs longest (two builds and a broker outage): the Kafka run took
# 206 CPU-s instead of 241 with C2 in it, in about the same wall time (184 s against 179 s);
# the suite keeps both cores busy, so its CPU is its time. Only the test session keeps the
# profile's default: its builds of the examples lake decoded 89k messages then, and `pytest
# tests/examples` took 353 s with C1 alone instead of 312 s (483 CPU-s against 508); the
# whole suite 771 s instead of 711.
CHILD_JAVA_OPTIONS = SHORT_RUN_JAVA_OPTIONS


# The heap of the tests' own Spark session (tests/conftest.py), which holds every module's
# lake in turn, the examples lake's megabyte values among them: on the default heap of 1g
# it spent 160 s of a 1,083 s suite collecting garbage, on 3g 37 s of 967 s. Set in the
# environment with SESSION_HEAP_ONLY, which home_env reads: child processes (`cdc`, dbt)
# run on the default heap, as users' commands do, unless one is set for the whole run.
TEST_SESSION_HEAP = "3g"
SESSION_HEAP_ONLY = "CDC_TEST_SESSION_HEAP_ONLY"


def home_env(home: Path) -> dict[str, str]:
    """This process's environment for a child process with its own state folder `home`
    (CDC_HOME, dbt's target and logs inside it), not the test session's lake, nor the heap
    of the test session; the JVM options of a child process (CHILD_JAVA_OPTIONS) unless the
    environment sets others."""
    env = dict(os.environ, CDC_HOME=str(home), DBT_TARGET_PATH=str(dbt_target(home)),
               DBT_LOG_PATH=str(home / "dbt-logs"))
    env.pop("CDC_TEST_HOME", None)
    if env.pop(SESSION_HEAP_ONLY, None):
        env.pop("CDC_DRIVER_MEMORY", None)
    env.setdefault("CDC_DRIVER_JAVA_OPTIONS", CHILD_JAVA_OPTIONS)
    return env


TESTS = Path(__file__).resolve().parent
PROJECT = TESTS.parent
BIN = Path(sys.executable).parent
SAMPLES = PROJECT / "samples"

# the samples a user's home gets: the files and the topic (None: each record's own) of
# each `cdc land`
USER_LANDINGS: list[tuple[list[str], str | None]] = [
    ([str(SAMPLES / "canal_inventory.ndjson")], "demo.canal.inventory"),
    ([str(SAMPLES / "debezium_inventory.jsonl"), str(SAMPLES / "shareplex_shop.jsonl"),
      str(SAMPLES / "drs_jsonc_shop.jsonl")], None),
]

# gold as the tests that compare two lakes read it: current rows, history, sync status
GOLD_QUERIES = {
    "current": "select table_id, row_key, row, row_count, last_op, sort_key from gold.cdc_current_rows",
    "history": "select table_id, row_key, row, row_count, op, valid_from, valid_to, is_current, is_deleted "
               "from gold.cdc_row_history",
    "status": "select topic, table_id, changes, inserts, updates, deletes, ddl_events, rejects, duplicates "
              "from gold.cdc_sync_status",
}


def rows_as_json(lake: Lake, queries: dict[str, str]) -> dict[str, list[str]]:
    """The rows of each query of `lake`, each as sorted JSON: lakes compare by these."""
    return {name: sorted(json.dumps(r, sort_keys=True, default=str) for r in lake.rows(q))
            for name, q in queries.items()}


def home_rows_as_json(lake: Lake, home: Path, queries: dict[str, str]) -> dict[str, list[str]]:
    """rows_as_json of the lake in `home`, read by this session from its table folders (no
    metastore, no process): each `silver.<table>` or `gold.<table>` of `queries` is its
    Delta folder (its log is its truth), `bronze.<table>` its Parquet folder with every
    partition folder in it (stricter than bronze's partition list: a folder a killed
    landing left and no later command removed would show as rows the lake does not have)."""
    def by_path(table: re.Match[str]) -> str:
        reader = "parquet" if table[1] == "bronze" else "delta"
        return f"{reader}.`{home / 'warehouse' / (table[1] + '.db') / table[2]}`"

    return rows_as_json(lake, {name: re.sub(r"\b(bronze|silver|gold)\.(\w+)", by_path, query)
                               for name, query in queries.items()})


def dbt_results(home: Path | None = None) -> list[dict[str, Any]]:
    """The node results (run_results.json) of the last dbt run of the processes with state
    in `home` (dbt_target), or of this process (DBT_TARGET_PATH)."""
    folder = dbt_target(home) if home else Path(os.environ["DBT_TARGET_PATH"])
    return list(json.loads((folder / "run_results.json").read_text(encoding="utf-8"))["results"])


# the table folders whose appearance triggers a kill, in build order (each run is killed
# at a table no earlier run reached): mid-silver, and in gold with the history committed
# and the current rows folded from it half-written (test_kafka_ingest kills `cdc run`'s
# build at the history's first creation)
KILL_POINTS = [
    "silver.db/int_cdc__decoded",
    "gold.db/cdc_current_rows",
]


def run(home: Path, *args: str, check: bool = True, timeout: int = 600,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`args[0]` (cdc, dbt, python) of this environment, in the project, with state in `home`
    (and the variables of `env` set)."""
    done = subprocess.run([str(BIN / args[0]), *args[1:]], cwd=PROJECT, env={**home_env(home), **(env or {})},
                          text=True, capture_output=True, timeout=timeout)
    if check and done.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {done.returncode}:\n"
                             f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def killed_when(home: Path, target: Path, *args: str) -> bool:
    """Run `cdc args` and kill its process group (Python, the JVM and its Python workers,
    as a power loss would) when `target` appears; True when the kill came while it ran
    (False: it ended first)."""
    if target.exists():
        return False
    # a process group of its own, not a session: tests/early.py
    process = subprocess.Popen([str(BIN / "cdc"), *args], cwd=PROJECT, env=home_env(home), process_group=0,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 600
    while process.poll() is None and time.monotonic() < deadline:
        if target.exists():
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return True
        time.sleep(0.02)
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    return False


def build_killed_at(home: Path, folder: str) -> bool:
    """Build seeds and models (the data tests would only add time before the kill), killed
    when the warehouse `folder` appears (killed_when)."""
    return killed_when(home, home / "warehouse" / folder, "build", "--exclude", "resource_type:test")


@dataclass(frozen=True)
class UserHome:
    """A state folder used as a user would, each command a process of its own: `cdc land`
    of four samples, two `cdc build`s killed with SIGKILL (KILL_POINTS), then a plain
    `dbt build` (the dbt plugin gives it the session and the UDFs), which recovers."""

    home: Path
    landed: list[str]  # what each `cdc land` printed
    kills: list[tuple[str, bool]]  # (kill point, the kill hit a running build)
    rebuild: subprocess.CompletedProcess[str]  # the plain dbt build after the kills
    # the names in the home's temporary folder (cdclake.paths.scratch_dir) right after each
    # kill, and after the plain dbt build
    scratch_after_kills: list[set[str]]
    scratch_after_rebuild: set[str]


def _scratch(home: Path) -> set[str]:
    return {p.name for p in scratch_dir(home).iterdir()}


def crashed_and_rebuilt(home: Path) -> UserHome:
    landed = [run(home, "cdc", "land", *files, *(["--topic", topic] if topic else [])).stdout
              for files, topic in USER_LANDINGS]
    kills, scratch = [], []
    for folder in KILL_POINTS:
        kills.append((folder, build_killed_at(home, folder)))
        scratch.append(_scratch(home))
    rebuild = run(home, "dbt", "build", "--profiles-dir", "profiles")
    return UserHome(home, landed, kills, rebuild, scratch, _scratch(home))
