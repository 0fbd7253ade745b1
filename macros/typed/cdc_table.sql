{#- One-line typed models for analysts. The whole body of a model file:

        {{ cdc_table('shop.orders') }}                      -- current state
        {{ cdc_table_history('shop.orders') }}              -- SCD type 2
        {{ cdc_table_as_of('shop.orders', "timestamp'2024-05-01 00:00:00'") }}

    give one column per source column, typed from silver.cdc_table_columns (the types the
    messages carry and DDL; seeds/cdc_type_map.csv maps them), in source order, then
    _cdc_* columns. Columns added by DDL appear at the next build; dropped columns
    disappear unless keep_dropped=true (or var cdc_keep_dropped_columns) keeps them, NULL
    from the drop on. A value that does not fit its column's type is NULL here and counted
    in gold.cdc_cast_failures. Rows of tables without a primary key appear as many times
    as the source has them. The models are views by default: they cost nothing to build
    and always show the latest gold. -#}

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


{#- The condition that selects the rows of one source table from a table partitioned by
    table_hash: the partition (no other file is read) and the name. -#}
{% macro cdc_is_table(table_id) -%}
    table_hash = {{ cdc_partition_hash(cdc_sql_string(table_id)) }} and table_id = {{ cdc_sql_string(table_id) }}
{%- endmacro %}


{#- The typed column list of a select over gold rows (`row_expr` is the row map). -#}
{% macro cdc_typed_select_list(table_id, row_expr, keep_dropped=none) -%}
    {%- for column_name, spark_type in cdc_typed_columns(table_id, keep_dropped) %}
        {{ cdc_cast_text(row_expr ~ '[' ~ cdc_sql_string(column_name) ~ ']', spark_type) }}
            as `{{ column_name | replace('`', '``') }}`,
    {%- endfor %}
{%- endmacro %}


{% macro cdc_table(table_id, keep_dropped=none) -%}
{{ config(materialized='view') }}
with

current_rows as (
    select * from {{ ref('cdc_current_rows') }}
    where {{ cdc_is_table(table_id) }}
),

final as (
    select
        {{- cdc_typed_select_list(table_id, 'current_rows.row', keep_dropped) }}
        current_rows.row_key as _cdc_row_key,
        current_rows.last_op as _cdc_last_op,
        current_rows.last_event_ts as _cdc_last_event_ts
    from current_rows
    -- a table without a key: one row per copy
    lateral view explode(sequence(1, greatest(current_rows.row_count, 1))) copies as _cdc_copy
)

select * from final
{%- endmacro %}


{% macro cdc_table_history(table_id, keep_dropped=none) -%}
{{ config(materialized='view') }}
with

history as (
    select * from {{ ref('cdc_row_history') }}
    where {{ cdc_is_table(table_id) }}
),

final as (
    select
        {{- cdc_typed_select_list(table_id, 'history.row', keep_dropped) }}
        history.valid_from,
        history.valid_to,
        history.is_current,
        history.is_deleted,
        history.row_count as _cdc_row_count,
        history.row_key as _cdc_row_key,
        history.op as _cdc_op
    from history
)

select * from final
{%- endmacro %}


{#- The rows live at `moment` (a Spark SQL timestamp expression): the versions valid then. -#}
{% macro cdc_table_as_of(table_id, moment, keep_dropped=none) -%}
{{ config(materialized='view') }}
with

history as (
    select * from {{ ref('cdc_row_history') }}
    where
        {{ cdc_is_table(table_id) }}
        and valid_from <= {{ moment }}
        and (valid_to is null or valid_to > {{ moment }})
        and not is_deleted
        and row_count > 0
),

final as (
    select
        {{- cdc_typed_select_list(table_id, 'history.row', keep_dropped) }}
        history.row_key as _cdc_row_key,
        history.op as _cdc_last_op,
        history.valid_from as _cdc_valid_from
    from history
    lateral view explode(sequence(1, history.row_count)) copies as _cdc_copy
)

select * from final
{%- endmacro %}
