{#- A SQL map from each column a table declares to `value_sql(sql_type, dialect)` (a macro
    giving SQL text), looked up for `table_id` (a SQL expression): NULL (of `map_type`)
    when the table declares no columns. -#}
{% macro cdc_declared_lookup(table_id, value_sql, map_type) -%}
    {%- set tables = [] -%}
    {%- for table, spec in cdc_declared_tables().items() if spec.columns -%}
        {%- do tables.append((table, spec)) -%}
    {%- endfor -%}
    {%- if not tables -%}
    cast(null as {{ map_type }})
    {%- else -%}
    try_element_at(map(
        {%- for table, spec in tables %}
        {{ cdc_sql_string(table) }}, map(
            {%- for column, sql_type in spec.columns.items() %}
            {{ cdc_sql_string(column) }}, {{ value_sql(sql_type, spec.dialect) }}{{ ',' if not loop.last }}
            {%- endfor %}
        ){{ ',' if not loop.last }}
        {%- endfor %}
    ), {{ table_id }})
    {%- endif -%}
{%- endmacro %}
