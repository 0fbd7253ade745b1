"""The format ids of DESIGN §4.2 (decoders exist for those in dbt_project.yml's
`cdc_decoded_formats`; the others are routed and rejected as "no decoder yet")."""

from __future__ import annotations

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
