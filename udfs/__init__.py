"""Python UDFs of the project, registered on the Spark session before dbt runs.

Each family lives in its own module; `register_all` is the one entry point
(called by `cdclake.runtime.get_session`, hence by `cdc` and by the dbt plugin).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from udfs import ddl, ddlmeta, drs_avro, dts_avro, mongo, types

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

FAMILIES = (ddl, ddlmeta, drs_avro, dts_avro, mongo, types)


def register_all(spark: SparkSession) -> None:
    for family in FAMILIES:
        family.register(spark)
