{#- The condition that selects the rows of one source table by table_id. -#}
{% macro cdc_is_table(table_id) -%}
    table_id = {{ cdc_sql_string(table_id) }}
{%- endmacro %}
