"""Run dbt in this process, after the Spark session and the UDFs exist."""

from __future__ import annotations

from cdclake import paths
from cdclake.runtime import fit_codegen, get_session


def dbt_args(args: list[str]) -> list[str]:
    """`args` plus the project and profiles folders, unless the caller gave them."""
    full = list(args)
    if "--project-dir" not in full:
        full += ["--project-dir", str(paths.PROJECT_DIR)]
    if "--profiles-dir" not in full:
        full += ["--profiles-dir", str(paths.PROFILES_DIR)]
    return full


def run_dbt(args: list[str]) -> bool:
    """Invoke dbt with `args`; True when it succeeded."""
    from dbt.cli.main import dbtRunner

    fit_codegen(get_session())
    result = dbtRunner().invoke(dbt_args(args))
    if result.exception is not None:
        raise SystemExit(f"dbt failed: {result.exception}")
    return bool(result.success)
