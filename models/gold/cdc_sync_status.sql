{{
    config(
        materialized='incremental',
        incremental_strategy='insert_overwrite',
        on_schema_change='fail',
    )
}}

{#-
    How far each topic and source table has been synchronised: counts by op, DDL events,
    heartbeats, markers, rejects and duplicates, the last change and its lag, the last
    heartbeat and how old it is at build time. One row per (topic, table_id); table_id is
    NULL on the row of a topic's records that name no table (rejects, duplicates, most
    heartbeats and transaction markers).

    Incremental: each run adds the counts of the silver rows above its high-water mark to
    the previous figures and rewrites the (small) table whole, so the heartbeat age is as
    of the latest build. Halves waiting for their partner are counted afresh each run.
    Not partitioned: the overwrite reads the previous figures from the table's last
    version and writes the new ones in one commit, a file or two however many topics (one
    partition per topic rewrote a file per topic at every build: 193 in the tests' lake).
-#}

{%- set counted_columns -%}
topic, table_id, vendor_format, record_kind, op, marker_kind, event_ts, capture_ts, kafka_ts, landing_batch_id
{%- endset %}

with

counted_rows as (
    -- update halves count once, as the change their pair became
    select {{ counted_columns }} from {{ ref('int_cdc__decoded') }} where record_kind != 'half'
    union all
    select {{ counted_columns }} from {{ ref('int_cdc__update_pairs') }}
),

new_rows as (
    select * from counted_rows
    {% if is_incremental() %}
    where landing_batch_id > {{ cdc_high_water_mark(this, 'built_through_batch_id') }}
    {% endif %}
),

duplicates_new as (
    select topic, cast(null as string) as table_id, vendor_format, landing_batch_id
    from {{ ref('stg_cdc__messages') }}
    where is_duplicate
        {% if is_incremental() %}
        and landing_batch_id > {{ cdc_high_water_mark(this, 'built_through_batch_id') }}
        {% endif %}
),

counted_new as (
    select
        topic,
        table_id,
        max(vendor_format) as vendor_format,
        count_if(record_kind = 'change') as changes,
        count_if(op = 'INSERT') as inserts,
        count_if(op = 'UPDATE') as updates,
        count_if(op = 'DELETE') as deletes,
        count_if(op = 'SNAPSHOT') as snapshots,
        count_if(op = 'TRUNCATE') as truncates,
        count_if(record_kind = 'ddl') as ddl_events,
        count_if(marker_kind = 'HEARTBEAT') as heartbeats,
        count_if(record_kind = 'marker' and marker_kind != 'HEARTBEAT') as other_markers,
        count_if(record_kind = 'reject') as rejects,
        cast(0 as bigint) as duplicates,
        max(case when record_kind = 'change' then event_ts end) as last_event_ts,
        max(case when record_kind = 'change' then capture_ts end) as last_capture_ts,
        max_by(
            (unix_micros(capture_ts) - unix_micros(event_ts)) / 1000000.0,
            case when record_kind = 'change' and capture_ts is not null then event_ts end
        ) as last_change_lag_seconds,
        max(case when marker_kind = 'HEARTBEAT' then coalesce(event_ts, capture_ts, kafka_ts) end)
            as last_heartbeat_ts,
        max(landing_batch_id) as built_through_batch_id
    from new_rows
    group by topic, table_id
    union all
    -- a union branch: the first branch names the columns -- noqa: disable=AL03
    select
        topic, table_id, max(vendor_format), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, count(*),
        null, null, null, null, max(landing_batch_id)
    -- noqa: enable=AL03
    from duplicates_new
    group by topic, table_id
),

{% if is_incremental() %}
previous as (
    select
        topic, table_id, vendor_format, changes, inserts, updates, deletes, snapshots, truncates, ddl_events,
        heartbeats, other_markers, rejects, duplicates, last_event_ts, last_capture_ts, last_change_lag_seconds,
        table_last_heartbeat_ts as last_heartbeat_ts, built_through_batch_id
    from {{ this }}
),
{% endif %}

combined as (
    select * from counted_new
    {% if is_incremental() %}
    union all
    select * from previous
    {% endif %}
),

summed as (
    select
        topic,
        table_id,
        max(vendor_format) as vendor_format,
        sum(changes) as changes,
        sum(inserts) as inserts,
        sum(updates) as updates,
        sum(deletes) as deletes,
        sum(snapshots) as snapshots,
        sum(truncates) as truncates,
        sum(ddl_events) as ddl_events,
        sum(heartbeats) as heartbeats,
        sum(other_markers) as other_markers,
        sum(rejects) as rejects,
        sum(duplicates) as duplicates,
        max(last_event_ts) as last_event_ts,
        max(last_capture_ts) as last_capture_ts,
        max_by(last_change_lag_seconds, last_event_ts) as last_change_lag_seconds,
        max(last_heartbeat_ts) as table_last_heartbeat_ts,
        max(built_through_batch_id) as built_through_batch_id
    from combined
    group by topic, table_id
),

waiting_halves as (
    select topic, table_id, count(*) as waiting_update_halves
    from {{ ref('cdc_update_halves') }}
    where not is_paired
    group by topic, table_id
),

joined as (
    select
        coalesce(summed.topic, waiting_halves.topic) as topic,
        coalesce(summed.table_id, waiting_halves.table_id) as table_id,
        summed.* except (topic, table_id),
        coalesce(waiting_halves.waiting_update_halves, 0) as waiting_update_halves
    from summed
    full outer join waiting_halves
        on summed.topic = waiting_halves.topic
        and summed.table_id <=> waiting_halves.table_id
),

final as (
    select
        topic,
        table_id,
        vendor_format,
        coalesce(changes, 0) as changes,
        coalesce(inserts, 0) as inserts,
        coalesce(updates, 0) as updates,
        coalesce(deletes, 0) as deletes,
        coalesce(snapshots, 0) as snapshots,
        coalesce(truncates, 0) as truncates,
        coalesce(ddl_events, 0) as ddl_events,
        coalesce(heartbeats, 0) as heartbeats,
        coalesce(other_markers, 0) as other_markers,
        coalesce(rejects, 0) as rejects,
        coalesce(duplicates, 0) as duplicates,
        waiting_update_halves,
        last_event_ts,
        last_capture_ts,
        last_change_lag_seconds,
        table_last_heartbeat_ts,
        max(table_last_heartbeat_ts) over (partition by topic) as last_heartbeat_ts,
        (unix_micros(current_timestamp()) - unix_micros(max(table_last_heartbeat_ts) over (partition by topic)))
        / 1000000.0 as heartbeat_lag_seconds,
        max(built_through_batch_id) over () as built_through_batch_id,
        current_timestamp() as built_at
    from joined
)

select * from final
