{#- canal_json_legacy: DTS "Canal Json" of change-tracking instances created before
    2022-03-20: UPDATE `data` = before image, `old` = after image; DELETE row in `old`. -#}
{% macro decode_canal_json_legacy(messages) -%}
    {{ decode_canal_family('canal_json_legacy', messages) }}
{%- endmacro %}
