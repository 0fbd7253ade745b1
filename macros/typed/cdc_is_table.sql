{#- The condition that selects the rows of one source table from a table partitioned by
    table_hash: the partition (no other file is read) and the name. -#}
{% macro cdc_is_table(table_id) -%}
    table_hash = {{ cdc_partition_hash(cdc_sql_string(table_id)) }} and table_id = {{ cdc_sql_string(table_id) }}
{%- endmacro %}
