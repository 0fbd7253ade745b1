"""What the tests that run `cdc`, `dbt` or Python in a process of their own share."""

from __future__ import annotations

import os
from pathlib import Path


def home_env(home: Path) -> dict[str, str]:
    """This process's environment for a child process with its own state folder `home`
    (CDC_HOME, dbt's target and logs inside it), not the test session's lake."""
    env = dict(os.environ, CDC_HOME=str(home), DBT_TARGET_PATH=str(home / "dbt-target"),
               DBT_LOG_PATH=str(home / "dbt-logs"))
    env.pop("CDC_TEST_HOME", None)
    return env
