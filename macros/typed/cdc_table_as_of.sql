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
