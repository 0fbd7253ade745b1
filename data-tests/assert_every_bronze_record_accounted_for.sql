{#- Nothing is lost (DESIGN §4.3): every bronze record ends in exactly one of
    silver.cdc_changes, silver.cdc_ddl_events, silver.cdc_heartbeats, silver.cdc_rejects,
    silver.cdc_update_halves (one half of an update sent as two messages: paired into a
    change, or waiting for its partner), or is a duplicate of an earlier record. Returns
    the records that do not. `cdc build` checks the landing batches it built (macro
    cdc_checked_batches); `cdc build --full-check` and plain dbt check them all. -#}

with

bronze as (
    select landing_batch_id, source_file, source_line
    from {{ source('bronze', 'kafka_messages') }}
    where {{ cdc_checked_batches('landing_batch_id') }}
),

placed as (
    select distinct landing_batch_id, source_file, source_line, 'change' as place
    from {{ ref('cdc_changes') }}
    where pair_key is null
    union all
    select landing_batch_id, source_file, source_line, 'update half' from {{ ref('cdc_update_halves') }}
    union all
    select landing_batch_id, source_file, source_line, 'ddl' from {{ ref('cdc_ddl_events') }}
    union all
    select landing_batch_id, source_file, source_line, 'marker' from {{ ref('cdc_heartbeats') }}
    union all
    select landing_batch_id, source_file, source_line, 'reject' from {{ ref('cdc_rejects') }}
    union all
    select landing_batch_id, source_file, source_line, 'duplicate'
    from {{ ref('stg_cdc__messages') }}
    where is_duplicate
),

counted as (
    select
        bronze.landing_batch_id,
        bronze.source_file,
        bronze.source_line,
        count(placed.place) as places,
        array_join(collect_list(placed.place), ', ') as found_in
    from bronze
    left join placed
        on bronze.landing_batch_id = placed.landing_batch_id
        and {{ cdc_checked_batches('placed.landing_batch_id') }}
        and bronze.source_file = placed.source_file
        and bronze.source_line = placed.source_line
    group by bronze.landing_batch_id, bronze.source_file, bronze.source_line
)

select * from counted
where places != 1
