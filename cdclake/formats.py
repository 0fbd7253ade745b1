"""The format ids of DESIGN §4.2 and the ones this version can decode."""

from __future__ import annotations

from pathlib import Path

import yaml

from cdclake import paths

KNOWN_FORMATS = (
    "canal_json",
    "canal_json_legacy",
    "drs_json",
    "drs_json_c",
    "drs_mongo_json",
    "drs_avro",
    "cdl_json",
    "debezium_json",
    "dataworks_json",
    "datahub_tuple",
    "dts_avro",
    "shareplex_json",
)


def decoded_formats(project_dir: Path = paths.PROJECT_DIR) -> list[str]:
    """Formats with a decoder model, as listed in `dbt_project.yml` (`vars.cdc_decoded_formats`)."""
    project = yaml.safe_load((project_dir / "dbt_project.yml").read_text(encoding="utf-8"))
    return list(project["vars"]["cdc_decoded_formats"])
