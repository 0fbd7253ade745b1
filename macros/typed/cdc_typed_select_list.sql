{#- The typed column list of a select over gold rows (`row_expr` is the row map). -#}
{% macro cdc_typed_select_list(table_id, row_expr, keep_dropped=none) -%}
    {%- for column_name, spark_type in cdc_typed_columns(table_id, keep_dropped) %}
        {{ cdc_cast_text(row_expr ~ '[' ~ cdc_sql_string(column_name) ~ ']', spark_type) }}
            as `{{ column_name | replace('`', '``') }}`,
    {%- endfor %}
{%- endmacro %}
