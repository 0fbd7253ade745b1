{#- Columns of gold.cdc_row_history (besides built_through_batch_id). -#}
{% macro cdc_history_columns() -%}
    {{- return([
        'table_id', 'row_key', 'row', 'row_count', 'op', 'valid_from', 'valid_to', 'is_current',
        'is_deleted', 'is_keyed', 'sort_key', 'kafka_partition', 'kafka_offset', 'row_index',
        'change_id', 'landing_batch_id'
    ]) -}}
{%- endmacro %}
