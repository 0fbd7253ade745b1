{#- A Spark SQL string literal holding `text` exactly. -#}
{% macro cdc_sql_string(text) -%}
    '{{ text | replace("\\", "\\\\") | replace("'", "\\'") }}'
{%- endmacro %}
