{{
    config(
        materialized='incremental',
        incremental_strategy='append',
        on_schema_change='fail',
    )
}}

{#- Where each landing batch saw each column of each source table: in the column types a
    change carries (or, for formats that send none, in its row image) and in the columns
    of parsed DDL (CREATE, ADD, MODIFY, RENAME, DROP). One row per table, column, kind of
    sighting, type and landing batch, so cdc_table_columns can rebuild a table's schema
    history from a few rows instead of from every change. A change's sightings keep their
    latest position in the source, and that of a whole row image (not a partial one): a
    column missing from a whole image of a format that sends no types and no DDL was
    dropped (gold.cdc_row_history, the identity of a row of a table without a key). -#}

{% if cdc_nothing_new(ref('int_cdc__decoded'), where="record_kind in ('change', 'half', 'ddl')") %}

select * from {{ this }} where false

{% else %}

with

changes as (
    -- a format that sends no column types (type system `untyped`) names its columns in
    -- the row image: those columns, with no type
    select
        table_id,
        case
            when cardinality(column_types) > 0 then type_system
            else 'untyped'
        end as type_system,
        case
            when cardinality(column_types) > 0 then column_types
            else map_from_arrays(
                    map_keys(coalesce(after, before)),
                    transform(map_keys(coalesce(after, before)), column_name -> cast(null as string))
                )
        end as seen_columns,
        pk_columns,
        coalesce(event_ts, capture_ts, kafka_ts) as seen_ts,
        {{ cdc_position() }} as seen_position,
        -- the image the columns come from is whole: a column it lacks is not in the row
        case
            when after is not null then not after_is_partial
            else not before_is_partial
        end as is_whole_image,
        landing_batch_id
    from {{ ref('int_cdc__decoded') }}
    where
        record_kind in ('change', 'half')
        and table_id is not null
        {% if is_incremental() %}
        and landing_batch_id > {{ cdc_high_water_mark(this) }}
        {% endif %}
),

changed_columns as (
    -- the changes of a batch that name the same columns with the same types, counted once
    -- before their columns are: about one group per table and batch instead of a row per
    -- change and column (explode, then group the rows, took twice as long on 1M changes)
    select
        table_id,
        type_system,
        map_entries(seen_columns) as seen_entries,
        pk_columns,
        landing_batch_id,
        min(seen_ts) as first_seen_ts,
        max(seen_ts) as last_seen_ts,
        max(seen_position) as last_position,
        max(case when is_whole_image then seen_position end) as last_whole_image_position,
        count(*) as sightings
    from changes
    group by table_id, type_system, map_entries(seen_columns), pk_columns, landing_batch_id
),

values_seen as (
    select
        changed_columns.table_id,
        changed_columns.type_system,
        'value' as sighting,
        nullif(array_position(changed_columns.pk_columns, seen.key), 0) as key_position,
        cast(null as int) as ddl_position,
        seen.key as column_name,
        seen.value as vendor_type,
        changed_columns.first_seen_ts,
        changed_columns.last_seen_ts,
        changed_columns.last_position,
        changed_columns.last_whole_image_position,
        changed_columns.sightings,
        changed_columns.landing_batch_id
    from changed_columns
        lateral view explode(changed_columns.seen_entries) entries as seen
),

ddl_columns as (
    select
        ddl.table_id,
        ddl.ddl_dialect as type_system,
        ddl_column.change,
        ddl_column.position,
        ddl_column.name,
        ddl_column.new_name,
        ddl_column.type as vendor_type,
        coalesce(ddl.event_ts, ddl.capture_ts, ddl.kafka_ts) as seen_ts,
        ddl.landing_batch_id
    from {{ ref('cdc_ddl_events') }} as ddl
        lateral view explode(ddl.ddl_columns) ddl_columns as ddl_column
    where
        ddl.ddl_action in ('CREATE', 'ALTER')
        and ddl.table_id is not null
        {% if is_incremental() %}
        and ddl.landing_batch_id > {{ cdc_high_water_mark(this) }}
        {% endif %}
),

ddl_sightings as (
    -- a column renamed (RENAME, or MySQL CHANGE old new) is dropped under its old name and
    -- added under its new one
    select
        table_id,
        type_system,
        case
            when change = 'ADD' then 'ddl_add'
            when change = 'DROP' then 'ddl_drop'
            when new_name is not null and new_name != name then 'ddl_drop'
            else 'ddl_modify'
        end as sighting,
        cast(null as int) as key_position,
        position as ddl_position,
        name as column_name,
        case when change in ('ADD', 'MODIFY') and (new_name is null or new_name = name) then vendor_type end
            as vendor_type,
        seen_ts as first_seen_ts,
        seen_ts as last_seen_ts,
        null as last_position,
        null as last_whole_image_position,
        1 as sightings,
        landing_batch_id
    from ddl_columns
    union all
    select
        table_id,
        type_system,
        'ddl_add' as sighting,
        cast(null as int) as key_position,
        position as ddl_position,
        new_name as column_name,
        vendor_type,
        seen_ts as first_seen_ts,
        seen_ts as last_seen_ts,
        null as last_position,
        null as last_whole_image_position,
        1 as sightings,
        landing_batch_id
    from ddl_columns
    where new_name is not null and new_name != name
),

sightings as (
    select * from values_seen
    union all
    select * from ddl_sightings
),

final as (
    select
        table_id,
        column_name,
        sighting,
        type_system,
        vendor_type,
        min(key_position) as key_position,
        min(ddl_position) as ddl_position,
        min(first_seen_ts) as first_seen_ts,
        max(last_seen_ts) as last_seen_ts,
        max(last_position) as last_position,
        max(last_whole_image_position) as last_whole_image_position,
        sum(sightings) as sightings,
        landing_batch_id
    from sightings
    group by table_id, column_name, sighting, type_system, vendor_type, landing_batch_id
)

select * from final

{% endif %}
