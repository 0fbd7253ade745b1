{{ config(materialized='view') }}

{#-
    Consumer lag of each `cdc ingest` subscription, per topic and partition: a view over
    the offsets the last `cdc ingest` (or `cdc run` cycle) measured, so the age of the
    oldest waiting record is as of the query, not of the build.
-#}

with

offsets as (
    select * from {{ source('bronze', 'kafka_offsets') }}
),

final as (
    select
        subscription,
        topic,
        kafka_partition,
        latest_offset,
        case when next_offset > 0 then next_offset - 1 end as last_ingested_offset,
        greatest(latest_offset - next_offset, 0) as lag_records,
        case
            when latest_offset > next_offset and oldest_waiting_ts is not null then
                (unix_micros(current_timestamp()) - unix_micros(oldest_waiting_ts)) / 1000000.0
            else 0
        end as lag_seconds,
        oldest_waiting_ts,
        checked_at
    from offsets
)

select * from final
