{#- Part 1 of gold.cdc_row_history (call it inside the model's `with`): the changes to
    fold. `changes` is silver.cdc_changes with the identity of each row of a table without a
    key taken without the columns the table no longer has (`column_sightings`,
    `untyped_columns`, `dropped_columns`). An incremental build also gives the changes
    above the high-water mark (`new_changes`), the tables they touch (`new_tables`), those
    with a new TRUNCATE or dropped columns (`refolded_tables`, their stored versions in
    `refolded_versions`) and the keys of those tables that must be folded again from the
    start (`refolded_table_keys`: every known key of a table that got a new TRUNCATE, rows
    of a keyless table whose identity a dropped column changes). Each CTE is read at most
    twice: Spark inlines a CTE at every reference. -#}
{% macro cdc_history_changes() -%}
column_sightings as (
    select
        table_id,
        column_name,
        is_dropped and is_current_type as is_dropped,
        max(last_seen_ts) over (partition by table_id, column_name) as column_last_seen_ts,
        bool_or(vendor_type is not null) over (partition by table_id, column_name) as is_typed,
        max(case when vendor_type is not null then last_seen_ts end) over (partition by table_id)
            as table_last_typed_ts
    from {{ ref('cdc_table_columns') }}
),

untyped_columns as (
    -- per column of a table whose messages carry no types (Shareplex Json, Debezium
    -- without its schema), the latest change that showed it, and the table's latest
    -- whole row image (an insert's, a delete's: every column, NULL ones too)
    select
        table_id,
        column_name,
        max(last_position) as last_position,
        max(max(last_whole_image_position)) over (partition by table_id) as table_last_whole_image_position
    from {{ ref('int_cdc__column_sightings') }}
    where sighting = 'value' and type_system = 'untyped'
    group by table_id, column_name
),

dropped_columns as (
    -- per table, the columns it no longer has: dropped by DDL; or (a format whose every
    -- message types all the table's columns, as Debezium's schema, Canal's mysqlType)
    -- missing from the types of its latest messages; or (a format without types) missing
    -- from a whole row image after the last change that showed them: for sources whose DDL
    -- is not in the stream
    select table_id, collect_set(column_name) as columns
    from (
        select table_id, column_name
        from column_sightings
        where is_dropped or (is_typed and column_last_seen_ts < table_last_typed_ts)
        union all
        select table_id, column_name
        from untyped_columns
        where last_position < table_last_whole_image_position
    )
    group by table_id
),

changes as (
    -- a row of a table without a key is its own identity, without the columns the table
    -- no longer has: a before image written after `DROP COLUMN x` names the row inserted
    -- with x (cdc_row_key leaves NULL columns out, so ADD COLUMN needs nothing here)
    select
        c.* except (row_key, before_row_key),
        case
            when size(c.pk_columns) = 0 and d.columns is not null and c.op != 'TRUNCATE' then
                {{ cdc_row_key('c.pk_columns', "map_filter(case when c.after_is_partial then "
                    ~ cdc_overlay('c.before', 'c.after') ~ " else coalesce(c.after, c.before) end, "
                    ~ "(k, v) -> not array_contains(d.columns, k))") }}
            else c.row_key
        end as row_key,
        case
            when size(c.pk_columns) = 0 and d.columns is not null and c.op = 'UPDATE' then
                {{ cdc_row_key('c.pk_columns', 'map_filter(c.before, (k, v) -> not array_contains(d.columns, k))') }}
            else c.before_row_key
        end as before_row_key
    from {{ ref('cdc_changes') }} as c
    left join dropped_columns as d on c.table_id = d.table_id
)
{%- if is_incremental() %},

new_changes as (
    select * from changes
    where landing_batch_id > {{ cdc_high_water_mark(this, 'built_through_batch_id') }}
),

new_tables as (
    -- the tables new changes touch
    select table_id, bool_or(op = 'TRUNCATE') as got_truncate
    from new_changes
    group by table_id
),

refolded_tables as (
    -- the tables among them whose known keys may be folded again: a new TRUNCATE, or
    -- columns dropped (the identity of a row without a key). Only their history is read:
    -- for a build without either, Spark reads none (the join below has no rows)
    select new_tables.table_id, new_tables.got_truncate, dropped_columns.columns as dropped
    from new_tables
    left join dropped_columns on new_tables.table_id = dropped_columns.table_id
    where new_tables.got_truncate or dropped_columns.columns is not null
),

refolded_versions as (
    -- the stored versions of those tables; for a row of a table without a key, the
    -- identity it has now, without the columns the table no longer has
    select
        h.table_id,
        h.row_key,
        t.got_truncate,
        case
            when not h.is_keyed and t.dropped is not null then
                {{ cdc_row_key('cast(array() as array<string>)',
                    'map_filter(h.row, (k, v) -> not array_contains(t.dropped, k))') }}
        end as row_key_now
    from {{ this }} as h
    inner join refolded_tables as t on h.table_id = t.table_id
),

refolded_table_keys as (
    -- every known key of a table that got a new TRUNCATE, and rows of a table without a
    -- key whose identity held a column dropped since they were folded: they are folded
    -- again under the new identity (both their old and their new key). Their versions
    -- keep the dropped column's values under the new identity, so a later build leaves
    -- them alone
    select distinct v.table_id, key_of.row_key
    from refolded_versions as v
        lateral view explode(
            case
                when v.row_key_now != v.row_key then array(v.row_key, v.row_key_now)
                when v.got_truncate then array(v.row_key)
                else cast(array() as array<string>)
            end
        ) key_of as row_key
    where key_of.row_key is not null
)
{% endif %}
{%- endmacro %}
