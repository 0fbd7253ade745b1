{#- The column types a table declares, lower-case, as a map<string,string> SQL expression
    for `table_id`; NULL when the table declares none. -#}
{% macro cdc_declared_columns(table_id) -%}
    {{ cdc_declared_lookup(table_id, cdc_declared_type_text, 'map<string, string>') }}
{%- endmacro %}
