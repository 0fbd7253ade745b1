{#- decode_drs_json_c: Huawei DRS JSON-C messages to silver rows. The format, its rows, keys,
    order and values: docs block fmt_drs_json_c (models/silver/_silver__docs.md).
    The code is the Canal family's, decode_canal_family (_canal_family.sql). -#}
{% macro decode_drs_json_c(messages) -%}
    {{ decode_canal_family('drs_json_c', messages) }}
{%- endmacro %}
