"""dbt plugin: plain `dbt run` / `dbt build` / `dbt test` get the project's Spark session.

dbt imports every installed module whose name starts with `dbt_` and instantiates the
classes in its `plugins` list before it runs anything. For this project, and when the
chosen target uses the embedded `session` method, `initialize` creates the Spark session
(settings: the profile's `server_side_parameters`) and registers the Python UDFs on it;
dbt-spark's `session` method then finds that session with `getOrCreate()`. It also makes
the next `cdc build` run even when nothing new was landed (cdclake/build_record.py).
Commands that read and write no table (`dbt parse`, `dbt ls`, `dbt docs serve`, ...) get
no session: starting Spark would add 10-20 s to each and change nothing.
"""

from __future__ import annotations

import os
import sys

from dbt.plugins.manager import dbtPlugin

PROJECT_NAME = "cdc_lakehouse"

# the dbt commands (dbt's flag WHICH) that run no query: they parse, list, clean, fetch
# packages or serve the docs site's files
WITHOUT_QUERIES = frozenset({"parse", "list", "ls", "clean", "deps", "init", "serve"})


def _chosen_target(argv: list[str]) -> str | None:
    """The `--target` / `-t` of the dbt command line, else $DBT_TARGET."""
    for i, arg in enumerate(argv):
        if arg in ("--target", "-t") and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--target="):
            return arg.split("=", 1)[1]
    return os.environ.get("DBT_TARGET")


class CdcLakehousePlugin(dbtPlugin):
    def initialize(self) -> None:
        if self.project_name != PROJECT_NAME:
            return
        from dbt.flags import get_flags

        if getattr(get_flags(), "WHICH", None) in WITHOUT_QUERIES:
            return
        from cdclake.build_record import forget_project
        from cdclake.runtime import get_session, target_method

        if target_method(_chosen_target(sys.argv)) != "session":
            return
        get_session()
        # dbt may change tables: the next `cdc build` must run (cdclake/build_record.py)
        forget_project()


plugins = [CdcLakehousePlugin]
