{{
    config(
        materialized='incremental',
        incremental_strategy='insert_overwrite',
        on_schema_change='fail',
    )
}}

{#- Schema history: every column of every source table, one row per type it was seen
    with, from the types the messages carry and from DDL. The row with is_current_type
    gives the column's type now, and table_type is what the typed models
    (cdc_table, cdc_table_history, cdc_table_as_of) cast it to.

    Incremental runs rebuild the tables that new sightings touch, from all their
    sightings, and keep the rows of the others: the table (a row per column and type of
    every source table) is rewritten whole, in one file and one commit, reading its
    previous rows from its last version. A table partitioned per source table read a file
    per table at every use (660 in the tests' lake: 3 s for 13,000 rows). An overwrite
    writes exactly what the query returns, so with nothing new the query returns the
    table as it is. After editing seeds/cdc_type_map.csv, rebuild every table with
    `cdc build --full-refresh -s cdc_table_columns+`. -#}

{#- The highest landing batch of the sightings, which every row written records: at or
    below this model's mark, nothing is new -#}
{%- set sightings_mark = cdc_high_water_mark(ref('int_cdc__column_sightings')) %}

{% if is_incremental() and sightings_mark <= cdc_high_water_mark(this, 'built_through_batch_id') %}

select * from {{ this }}

{% else %}

with

touched_tables as (
    select distinct table_id from {{ ref('int_cdc__column_sightings') }}
    {% if is_incremental() %}
    where landing_batch_id > {{ cdc_high_water_mark(this, 'built_through_batch_id') }}
    {% endif %}
),

sightings as (
    select sightings.*
    from {{ ref('int_cdc__column_sightings') }} as sightings
    left semi join touched_tables on sightings.table_id = touched_tables.table_id
),

versions as (
    select
        table_id,
        column_name,
        type_system,
        vendor_type,
        min(key_position) as key_position,
        min(ddl_position) as ddl_position,
        min(first_seen_ts) as first_seen_ts,
        max(last_seen_ts) as last_seen_ts,
        sum(case when sighting = 'value' then sightings end) as changes_seen,
        max(sighting in ('ddl_add', 'ddl_modify')) as seen_in_ddl,
        max(landing_batch_id) as last_landing_batch_id
    from sightings
    where sighting != 'ddl_drop'
    group by table_id, column_name, type_system, vendor_type
),

typed_versions as (
    {{ cdc_resolve_types('versions') }}
),

drops as (
    select
        table_id,
        column_name,
        max(last_seen_ts) as dropped_ts
    from sightings
    where sighting = 'ddl_drop'
    group by table_id, column_name
),

ranked as (
    select
        typed_versions.*,
        -- the column's type now: a reported type over none, a type over a NULL value's
        -- "type", then the latest seen
        row_number() over (
            partition by typed_versions.table_id, typed_versions.column_name
            order by
                typed_versions.vendor_type is null asc,
                typed_versions.is_null_value asc,
                typed_versions.last_seen_ts desc,
                typed_versions.seen_in_ddl desc
        ) = 1 as is_current_type,
        -- formats whose types are those of values (DataHub Tuple, BSON): a column whose
        -- values came in several types is text
        size(collect_set(case when not typed_versions.is_null_value then typed_versions.spark_type end) over (
            partition by typed_versions.table_id, typed_versions.column_name
        )) > 1 and typed_versions.type_system in ('datahub', 'bson') as has_mixed_value_types,
        min(typed_versions.ddl_position) over (
            partition by typed_versions.table_id, typed_versions.column_name
        ) as column_ddl_position,
        min(typed_versions.key_position) over (
            partition by typed_versions.table_id, typed_versions.column_name
        ) as column_key_position,
        min(typed_versions.first_seen_ts) over (
            partition by typed_versions.table_id, typed_versions.column_name
        ) as column_first_seen_ts,
        max(typed_versions.last_seen_ts) over (
            partition by typed_versions.table_id, typed_versions.column_name
        ) as column_last_seen_ts
    from typed_versions
),

positioned as (
    -- the order of the source's CREATE TABLE when one was seen; else key columns first,
    -- then the others in order of first appearance and by name (messages do not keep
    -- their columns' order through Spark's VARIANT)
    select
        *,
        dense_rank() over (
            partition by table_id
            order by
                column_ddl_position is null, column_ddl_position,
                column_key_position is null, column_key_position,
                column_first_seen_ts, column_name
        ) as column_position
    from ranked
),

final as (
    select
        ranked.table_id,
        ranked.column_name,
        ranked.column_position,
        ranked.type_system,
        ranked.vendor_type,
        ranked.spark_type,
        ranked.type_key,
        coalesce(
            ranked.type_note,
            case when ranked.has_mixed_value_types then 'values of several types: text' end
        ) as type_note,
        ranked.is_current_type,
        case
            when ranked.is_current_type and ranked.has_mixed_value_types then 'string'
            when ranked.is_current_type then ranked.spark_type
        end as table_type,
        ranked.first_seen_ts,
        ranked.last_seen_ts,
        coalesce(ranked.changes_seen, 0) as changes_seen,
        ranked.seen_in_ddl,
        coalesce(drops.dropped_ts >= ranked.column_last_seen_ts, false) as is_dropped,
        case when drops.dropped_ts >= ranked.column_last_seen_ts then drops.dropped_ts end as dropped_ts,
        cast({{ sightings_mark }} as bigint) as built_through_batch_id
    from positioned as ranked
    left join drops
        on ranked.table_id = drops.table_id and ranked.column_name = drops.column_name
)

select * from final
{% if is_incremental() %}
union all
-- the tables no new sighting touches, as the last build left them
select kept.*
from {{ this }} as kept
left anti join touched_tables on kept.table_id = touched_tables.table_id
{% endif %}

{% endif %}
