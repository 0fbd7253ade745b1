"""The format ids of DESIGN §4.2: the one list of them. Each has a decoder
(macros/decoders/<id>.sql), a staging model and a docs block; var `cdc_decoded_formats`
(dbt_project.yml) turns decoders on, all of them by default (a format left out is routed
and rejected as "no decoder"). tests/test_project_layout.py checks every other list of
format ids against this one."""

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
