{#- drs_json_c: Huawei DRS JSON-C: as drs_json, but DELETE rows in `data` and
    timestamps as `yyyy-mm-dd hh:mm:ss` text. -#}
{% macro decode_drs_json_c(messages) -%}
    {{ decode_canal_family('drs_json_c', messages) }}
{%- endmacro %}
