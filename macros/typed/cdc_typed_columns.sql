{#- [(column name, Spark type)] of a table, in source order (empty while dbt parses). -#}
{% macro cdc_typed_columns(table_id, keep_dropped=none) -%}
    {%- set keep = var('cdc_keep_dropped_columns', false) if keep_dropped is none else keep_dropped -%}
    {%- set columns_model = ref('cdc_table_columns') -%}
    {%- if not execute or load_relation(columns_model) is none -%}
        {{- return([]) -}}
    {%- endif -%}
    {%- set found = run_query(
        'select column_name, table_type from ' ~ columns_model
        ~ ' where is_current_type and ' ~ cdc_is_table(table_id)
        ~ ('' if keep else ' and not is_dropped')
        ~ ' order by column_position is null, column_position, first_seen_ts, column_name'
    ) -%}
    {%- if found.rows | length == 0 -%}
        {{- log('cdc_table: no columns known for ' ~ table_id ~ ' (no message or DDL of it yet)', info=true) -}}
    {%- endif -%}
    {{- return(found.rows | map('list') | list) -}}
{%- endmacro %}
