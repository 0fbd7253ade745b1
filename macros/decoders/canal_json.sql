{#- decode_canal_json: Canal FlatMessage / DTS "Canal Json" messages to silver rows. The format,
    its rows, keys, order and values: docs block fmt_canal_json (models/silver/_silver__docs.md).
    The code is the Canal family's, decode_canal_family (_canal_family.sql). -#}
{% macro decode_canal_json(messages) -%}
    {{ decode_canal_family('canal_json', messages) }}
{%- endmacro %}
