"""dbt plugin: plain `dbt run` / `dbt build` / `dbt test` get the project's Spark session.

dbt imports every installed module whose name starts with `dbt_` and instantiates the
classes in its `plugins` list before it runs anything. For this project, `initialize`
creates the embedded Spark session (settings of `cdclake.runtime.spark_settings`, the same
as `profiles/profiles.yml`) and registers the Python UDFs on it; dbt-spark's `session`
method then finds that session with `getOrCreate()`.
"""

from __future__ import annotations

from dbt.plugins.manager import dbtPlugin

PROJECT_NAME = "cdc_lakehouse"


class CdcLakehousePlugin(dbtPlugin):
    def initialize(self) -> None:
        if self.project_name != PROJECT_NAME:
            return
        from cdclake.runtime import get_session

        get_session()


plugins = [CdcLakehousePlugin]
