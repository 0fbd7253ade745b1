{#- The one row shape every decoder emits (one row per change, DDL statement, marker,
    update half or reject), in this order. int_cdc__decoded unions the decoders by these
    names. `pair_key` is set on the halves of an update that a format sends as two
    messages (DataWorks UPDATE_BEFOR + UPDATE_AFTER, DataHub Tuple before/after rows):
    record_kind 'half', paired into one UPDATE by int_cdc__update_pairs. -#}
{% macro cdc_decoded_columns() -%}
    {{- return([
        'message_id', 'vendor_format', 'topic', 'kafka_partition', 'kafka_offset', 'kafka_ts',
        'message_key', 'message_value', 'value_encoding', 'declared_format', 'format_source',
        'source_file', 'source_line', 'landing_batch_id',
        'record_kind', 'row_index',
        'source_db', 'source_schema', 'source_table', 'table_id',
        'op', 'vendor_op', 'pk_columns', 'before', 'after', 'before_is_partial', 'after_is_partial',
        'column_types', 'event_ts', 'capture_ts', 'sort_key', 'tx_id', 'pair_key',
        'ddl_text', 'ddl_dialect', 'marker_kind', 'detail', 'reject_stage', 'reject_reason'
    ]) -}}
{%- endmacro %}
