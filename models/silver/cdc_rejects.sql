{{ config(materialized='view') }}

with

decoded as (
    select * from {{ ref('int_cdc__decoded') }}
    where record_kind = 'reject'
),

final as (
    select
        message_id,
        topic,
        kafka_partition,
        kafka_offset,
        kafka_ts,
        message_key,
        message_value,
        value_encoding,
        declared_format,
        format_source,
        vendor_format,
        reject_stage,
        reject_reason,
        source_file,
        source_line,
        landing_batch_id,
        decoded_at as rejected_at
    from decoded
)

select * from final
