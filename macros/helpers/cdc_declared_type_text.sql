{#- A declared type as a SQL string literal, lower-case (`dialect` is not needed). -#}
{% macro cdc_declared_type_text(sql_type, dialect) -%}
    {{ cdc_sql_string(sql_type | string | lower) }}
{%- endmacro %}
