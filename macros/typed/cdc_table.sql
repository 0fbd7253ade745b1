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
