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

values_seen as (
    select
        changes.table_id,
        changes.type_system,
        'value' as sighting,
        nullif(array_position(changes.pk_columns, seen.column_name), 0) as key_position,
        cast(null as int) as ddl_position,
        seen.column_name,
        seen.vendor_type,
        changes.seen_ts,
        changes.seen_position,
        case when changes.is_whole_image then changes.seen_position end as whole_image_position,
        changes.landing_batch_id
    from changes
        lateral view explode(changes.seen_columns) seen as column_name, vendor_type
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
        seen_ts,
        null as seen_position,
        null as whole_image_position,
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
        seen_ts,
        null as seen_position,
        null as whole_image_position,
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
        min(seen_ts) as first_seen_ts,
        max(seen_ts) as last_seen_ts,
        max(seen_position) as last_position,
        max(whole_image_position) as last_whole_image_position,
        count(*) as sightings,
        landing_batch_id
    from sightings
    group by table_id, column_name, sighting, type_system, vendor_type, landing_batch_id
)

select * from final

{% endif %}
