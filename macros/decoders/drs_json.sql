{#- decode_drs_json: Huawei DRS JSON messages to silver rows. The format, its rows, keys, order
    and values: docs block fmt_drs_json (models/silver/_silver__docs.md).
    The code is the Canal family's, decode_canal_family (_canal_family.sql). -#}
{% macro decode_drs_json(messages) -%}
    {{ decode_canal_family('drs_json', messages) }}
{%- endmacro %}
