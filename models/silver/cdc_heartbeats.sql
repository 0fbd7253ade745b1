{{ config(materialized='view') }}

with

decoded as (
    select * from {{ ref('int_cdc__decoded') }}
    where record_kind = 'marker'
),

final as (
    select
        message_id,
        vendor_format,
        topic,
        kafka_partition,
        kafka_offset,
        kafka_ts,
        marker_kind,
        vendor_op,
        source_db,
        source_schema,
        source_table,
        table_id,
        event_ts,
        capture_ts,
        sort_key,
        tx_id,
        detail,
        landing_batch_id,
        source_file,
        source_line
    from decoded
)

select * from final
