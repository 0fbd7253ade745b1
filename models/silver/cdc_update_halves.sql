{{ config(materialized='view') }}

{#- The halves of updates that a format sends as two messages (DataWorks UPDATE_BEFOR +
    UPDATE_AFTER, DataHub Tuple before / after rows), each with whether its pair is
    complete. A paired half is part of one row of cdc_changes (same pair_key); an
    unpaired one waits for its partner, which a later landing may bring. -#}

with

halves as (
    select * from {{ ref('int_cdc__decoded') }}
    where record_kind = 'half'
),

paired as (
    select vendor_format, table_id, pair_key, change_id as paired_change_id
    from {{ ref('int_cdc__update_pairs') }}
),

final as (
    select
        halves.message_id,
        halves.vendor_format,
        halves.topic,
        halves.kafka_partition,
        halves.kafka_offset,
        halves.kafka_ts,
        halves.source_db,
        halves.source_schema,
        halves.source_table,
        halves.table_id,
        halves.pair_key,
        case when halves.after is null then 'before' else 'after' end as half,
        halves.vendor_op,
        coalesce(halves.after, halves.before) as image,
        paired.paired_change_id is not null as is_paired,
        paired.paired_change_id,
        halves.event_ts,
        halves.landing_batch_id,
        halves.source_file,
        halves.source_line
    from halves
    left join paired
        on halves.vendor_format = paired.vendor_format
        and halves.table_id <=> paired.table_id
        and halves.pair_key = paired.pair_key
)

select * from final
