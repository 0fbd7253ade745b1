"""dbt's context names that our models and macros use, for sqlfluff's jinja templater.

`.sqlfluff` loads this package as its `library_path`; its names take precedence over
sqlfluff's own dbt builtins. They render the models as dbt does when it parses them:
`execute` is false, so no macro runs a query, and `var()` answers from dbt_project.yml
(sqlfluff's builtin `var()` returns the string 'item' for every variable, which breaks
the models that loop over a list variable).
"""

import os
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import yaml

_PROJECT_VARS: dict[str, Any] = yaml.safe_load(
    (Path(__file__).resolve().parents[2] / "dbt_project.yml").read_text(encoding="utf-8")
).get("vars", {})

# dbt's parse phase: run_query() is not called.
execute = False
flags = SimpleNamespace(FULL_REFRESH=False)
invocation_args_dict: dict[str, Any] = {}
modules = SimpleNamespace(re=re)


def var(name: str, default: Any = None) -> Any:
    """The project variable `name` as dbt_project.yml declares it, else `default`."""
    return _PROJECT_VARS.get(name, default)


def env_var(name: str, default: str | None = None) -> str:
    """The environment variable `name`, else `default`; dbt fails on a missing one."""
    value = os.environ.get(name, default)
    if value is None:
        raise KeyError(f"env var {name} is not set and has no default")
    return value


def run_query(sql: str) -> None:
    """Never called at lint time: every caller checks `execute` first."""
    raise RuntimeError(f"run_query() called while linting (execute is false): {sql}")
