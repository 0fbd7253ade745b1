{#- The condition that selects the rows of one source table by table_id; with
    `partitioned`, from a table partitioned by table_hash, also its partition (no other
    folder is read). -#}
{% macro cdc_is_table(table_id, partitioned=false) -%}
    {%- if partitioned -%}
    table_hash = {{ cdc_partition_hash(cdc_sql_string(table_id)) }} and {% endif -%}
    table_id = {{ cdc_sql_string(table_id) }}
{%- endmacro %}
