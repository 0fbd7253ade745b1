{{ config(materialized='view') }}

{#- A view over the change rows of int_cdc__decoded (partition record_kind = 'change')
    and the updates int_cdc__update_pairs made of two halves: building it costs nothing,
    reading it reads only that partition and the pairs. -#}

{%- set change_columns -%}
    change_id, vendor_format, topic, kafka_partition, kafka_offset, row_index, kafka_ts, source_db,
    source_schema, source_table, table_id, op, vendor_op, pk_columns, row_key, before_row_key, before, after,
    before_is_partial, after_is_partial, column_types, event_ts, capture_ts, sort_key, tx_id, pair_key,
    ddl_text, document, update_operators, message_id, landing_batch_id, source_file, source_line
{%- endset %}

with

decoded as (
    select {{ change_columns }}
    from {{ ref('int_cdc__decoded') }}
    where record_kind = 'change'
    union all
    select {{ change_columns }}
    from {{ ref('int_cdc__update_pairs') }}
),

final as (
    select
        change_id,
        vendor_format,
        topic,
        kafka_partition,
        kafka_offset,
        row_index,
        kafka_ts,
        source_db,
        source_schema,
        source_table,
        table_id,
        op,
        vendor_op,
        pk_columns,
        row_key,
        before_row_key,
        before,
        after,
        before_is_partial,
        after_is_partial,
        column_types,
        event_ts,
        capture_ts,
        sort_key,
        tx_id,
        pair_key,
        ddl_text as truncate_statement,
        -- document stores: the whole document, or the update operators of a partial update
        document,
        update_operators,
        message_id,
        landing_batch_id,
        source_file,
        source_line
    from decoded
)

select * from final
