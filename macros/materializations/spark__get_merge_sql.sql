{#- Override of dbt-spark's MERGE for the incremental strategy `merge`. A model with the
    config `cdc_replace_keys` (columns, such as ['table_id', 'row_key']) replaces keys: its
    incremental query returns the key of every key it replaces once, with the column
    `is_replaced_key` true and the other columns NULL, and the new rows of those keys
    with `is_replaced_key` false (a key may end with no row). One Delta MERGE deletes
    every row of the replaced keys and inserts the new rows: one commit, so a reader
    sees the table before or after it, never between. A key must not appear twice among
    the replaced keys (one target row, one source row). With the config
    `cdc_replace_only_where` (a boolean column), a key whose replacement row has that
    column true replaces only its rows where it is true (NULL: all its rows). Other
    models get dbt-spark's MERGE. -#}
{% macro spark__get_merge_sql(target, source, unique_key, dest_columns, incremental_predicates) %}
    {%- set replace_keys = config.get('cdc_replace_keys') -%}
    {%- if not replace_keys -%}
        {{- return(dbt_spark.spark__get_merge_sql(target, source, unique_key, dest_columns, incremental_predicates)) -}}
    {%- endif -%}
    {%- set only_where = config.get('cdc_replace_only_where') -%}
    {%- set columns = adapter.get_columns_in_relation(target) | map(attribute='quoted') | list -%}
    merge into {{ target }} as target
    using {{ source }} as source
    on source.is_replaced_key
        {%- for key in replace_keys %}
        and target.{{ key }} = source.{{ key }}
        {%- endfor %}
        {%- if only_where %}
        and (source.{{ only_where }} is null or target.{{ only_where }})
        {%- endif %}
    when matched then delete
    when not matched and not source.is_replaced_key then insert ({{ columns | join(', ') }})
        values ({% for column in columns %}source.{{ column }}{{ ', ' if not loop.last }}{% endfor %})
{% endmacro %}
