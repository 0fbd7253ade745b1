"""What the tests that run `cdc`, `dbt` or Python in a process of their own share."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path


def home_env(home: Path) -> dict[str, str]:
    """This process's environment for a child process with its own state folder `home`
    (CDC_HOME, dbt's target and logs inside it), not the test session's lake."""
    env = dict(os.environ, CDC_HOME=str(home), DBT_TARGET_PATH=str(home / "dbt-target"),
               DBT_LOG_PATH=str(home / "dbt-logs"))
    env.pop("CDC_TEST_HOME", None)
    return env


PROJECT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SAMPLES = PROJECT / "samples"

# the samples a user's home gets, as `cdc land` arguments
USER_LANDINGS = [
    [str(SAMPLES / "canal_inventory.ndjson"), "--topic", "demo.canal.inventory"],
    [str(SAMPLES / "debezium_inventory.jsonl"), str(SAMPLES / "shareplex_shop.jsonl"),
     str(SAMPLES / "drs_jsonc_shop.jsonl")],
]

# the table folders whose appearance triggers a kill, in build order (each run is killed
# at a table no earlier run reached)
KILL_POINTS = [
    "silver.db/int_cdc__decoded",
    "gold.db/cdc_row_history",
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


def build_killed_at(home: Path, folder: str) -> bool:
    """Build seeds and models (the data tests would only add time before the kill) and kill
    the process group (Python, the JVM and its Python workers, as a power loss would)
    when `folder` appears; True when the kill came while the build ran (False: the build
    ended first)."""
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


@dataclass(frozen=True)
class UserHome:
    """A state folder used as a user would, each command a process of its own: `cdc land`
    of four samples, three `cdc build`s killed with SIGKILL (KILL_POINTS), then a plain
    `dbt build` (the dbt plugin gives it the session and the UDFs), which recovers."""

    home: Path
    landed: list[str]  # what each `cdc land` printed
    kills: list[tuple[str, bool]]  # (kill point, the kill hit a running build)
    rebuild: subprocess.CompletedProcess[str]  # the plain dbt build after the kills


def crashed_and_rebuilt(home: Path) -> UserHome:
    landed = [run(home, "cdc", "land", *landing).stdout for landing in USER_LANDINGS]
    kills = [(folder, build_killed_at(home, folder)) for folder in KILL_POINTS]
    rebuild = run(home, "dbt", "build", "--profiles-dir", "profiles")
    return UserHome(home, landed, kills, rebuild)
