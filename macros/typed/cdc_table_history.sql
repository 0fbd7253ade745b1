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
