{{
    config(
        materialized='incremental',
        incremental_strategy='insert_overwrite',
        partition_by=['table_hash'],
    )
}}

{#-
    SCD type 2 of every source row, folded from silver.cdc_changes in change order
    (macro cdc_position). Each change becomes key events:

    keyed tables:   INSERT/SNAPSHOT -> upsert(after); DELETE -> delete;
                    UPDATE -> upsert(after), or merge(after) when the after image is partial;
                    an UPDATE that changes the key -> delete(old key) + upsert(new key)
    unkeyed tables (multiset, the row is its own key):
                    INSERT/SNAPSHOT -> +1; DELETE -> -1; UPDATE -> -1 before, +1 after
    TRUNCATE:       a truncate event for every key of the table seen before it
    document stores: an UPDATE whose partial after image comes with update operators
                    (cdc_changes.update_operators) -> patch; the documents of
                    keys that got a patch fold in Python (UDF cdc_fold_documents, which
                    applies $set / $unset / dotted paths / $inc ... the way MongoDB does),
                    the others in SQL like every other key

    Ties: changes with the same sort_key in different partitions have no known order
    (Canal and DRS hash rows to partitions by key, so an UPDATE moving key k away sits in
    the new key's partition). Where such a tie holds a creation of k (INSERT, or an
    UPDATE moving a row onto k) and a move of k away, k's state orders them: a creation
    onto a present k came after the move, a move of an absent k came after the creation.
    A row of a table without a key has an identity without NULL columns and without the
    columns the table no longer has (dropped by DDL, or missing from the column types of
    its latest messages).

    Incremental runs fold again only the keys that new changes touch (every key of a
    table that got a new TRUNCATE), from all their changes, so changes that arrive late
    or out of order across partitions land in their true place; the partitions
    (table_hash) of the touched tables are rewritten, the others are left alone.
-#}

{% if cdc_nothing_new(ref('cdc_changes'), mark_column='built_through_batch_id') %}

select * from {{ this }} where false

{% else %}

{#- Python folds documents only when some change is an update-operator patch -#}
{%- set fold_documents = execute and (run_query(
    'select 1 from ' ~ ref('cdc_changes') ~ ' where after_is_partial and update_operators is not null limit 1'
).rows | length > 0) %}

with

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

dropped_columns as (
    -- per table, the columns it no longer has: dropped by DDL, or (a format whose every
    -- message types all the table's columns, as Debezium's schema, Canal's mysqlType)
    -- missing from the types of its latest messages, for sources whose DDL is not in the
    -- stream
    select table_id, collect_set(column_name) as columns
    from column_sightings
    where is_dropped or (is_typed and column_last_seen_ts < table_last_typed_ts)
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
),

{% if is_incremental() %}
watermark as (
    select {{ cdc_high_water_mark(this, 'built_through_batch_id') }} as batch_id
),

new_changes as (
    select * from changes
    where landing_batch_id > (select watermark.batch_id from watermark)
),

touched_keys as (
    -- the keys new changes touch, and every known key of a table that got a new TRUNCATE
    select distinct table_id, row_key from new_changes where row_key is not null
    union
    select distinct table_id, before_row_key from new_changes where before_row_key is not null
    union
    select distinct h.table_id, h.row_key from {{ this }} as h
    left semi join (select table_id from new_changes where op = 'TRUNCATE') as t -- noqa: ST05
        on h.table_id = t.table_id
    union
    -- rows of a table without a key that hold a column dropped since they were folded:
    -- their identity changes, so they are folded again under the new one
    -- arguments aligned by hand: sqlfluff allows no hanging indents -- noqa: disable=LT02
    select distinct h.table_id, key_of.row_key from {{ this }} as h
    inner join dropped_columns as d on h.table_id = d.table_id
    left semi join (select table_id from new_changes) as t -- noqa: ST05
        on h.table_id = t.table_id
    lateral view explode(array(
        h.row_key,
        {{ cdc_row_key('cast(array() as array<string>)',
                       'map_filter(h.row, (k, v) -> not array_contains(d.columns, k))') }}
    )) key_of as row_key
    -- noqa: enable=LT02
    where not h.is_keyed and exists(map_keys(h.row), k -> array_contains(d.columns, k) and h.row[k] is not null)
),

touched_change_ids as (
    select c.change_id from changes as c
    left semi join touched_keys as k on c.table_id = k.table_id and c.row_key = k.row_key
    union
    select c.change_id from changes as c
    left semi join touched_keys as k on c.table_id = k.table_id and c.before_row_key = k.row_key
),

folded_changes as (
    -- all changes, old and new, of the touched keys: they are folded again from the start
    select changes.* from changes
    left semi join touched_change_ids as t on changes.change_id = t.change_id
),
{% else %}
folded_changes as (
    select * from changes where op != 'TRUNCATE'
),
{% endif %}

key_events as (
    select
        c.table_id,
        e.row_key,
        e.action,
        e.image,
        e.delta,
        {{ cdc_position('c', 'e.sub_index') }} as position,
        e.kind,
        c.op,
        coalesce(c.event_ts, c.capture_ts, c.kafka_ts) as event_ts,
        c.change_id,
        c.landing_batch_id,
        size(c.pk_columns) > 0 as is_keyed,
        -- what the document fold reads: the operators of a patch, else the whole document
        coalesce(c.update_operators, c.document) as document
    from folded_changes as c
    -- arguments aligned by hand: sqlfluff allows no hanging indents -- noqa: disable=LT02
    lateral view explode(
        case
            when c.op = 'TRUNCATE' then array()
            when size(c.pk_columns) = 0 and c.op = 'UPDATE' and c.before_row_key = c.row_key then
                -- an update that leaves an unkeyed row as it was: one version, count unchanged
                array(named_struct('row_key', c.row_key, 'action', 'count', 'image', c.after,
                                   'delta', 0, 'sub_index', 1, 'kind', 'other'))
            when size(c.pk_columns) = 0 then
                filter(array(
                    case when c.op in ('DELETE', 'UPDATE') and c.before is not null then
                        named_struct('row_key', coalesce(c.before_row_key, c.row_key), 'action', 'count',
                                     'image', c.before, 'delta', -1, 'sub_index', 0, 'kind', 'other') end,
                    case when c.op in ('INSERT', 'SNAPSHOT', 'UPDATE') then
                        named_struct('row_key', c.row_key, 'action', 'count',
                                     'image', c.after, 'delta', 1, 'sub_index', 1, 'kind', 'other') end
                ), x -> x is not null)
            when c.op in ('INSERT', 'SNAPSHOT') then
                array(named_struct('row_key', c.row_key, 'action', 'upsert', 'image', c.after,
                                   'delta', 0, 'sub_index', 0, 'kind', 'create'))
            when c.op = 'DELETE' then
                array(named_struct('row_key', c.row_key, 'action', 'delete', 'image', cast(null as map<string, string>),
                                   'delta', 0, 'sub_index', 0, 'kind', 'other'))
            else
                filter(array(
                    case when c.before_row_key is not null and c.before_row_key != c.row_key then
                        named_struct('row_key', c.before_row_key, 'action', 'delete',
                                     'image', cast(null as map<string, string>), 'delta', 0, 'sub_index', 0,
                                     'kind', 'move_away') end,
                    named_struct(
                        'row_key', c.row_key,
                        'action', case
                            when c.after_is_partial and c.update_operators is not null then 'patch'
                            when c.after_is_partial then 'merge'
                            else 'upsert'
                        end,
                        'image', case
                            when c.after_is_partial and c.before_row_key is not null and c.before_row_key != c.row_key
                                then {{ cdc_overlay('c.before', 'c.after') }}
                            else c.after
                        end,
                        'delta', 0, 'sub_index', 1,
                        'kind', case when c.before_row_key != c.row_key then 'create' else 'other' end)
                ), x -> x is not null)
        end
    ) exploded as e
),

-- noqa: enable=LT02

{% if is_incremental() %}
relevant_events as (
    select key_events.*
    from key_events
    left semi join touched_keys
        on key_events.table_id = touched_keys.table_id and key_events.row_key = touched_keys.row_key
),
{% else %}
relevant_events as (
    select * from key_events
),
{% endif %}

truncates as (
    select
        table_id, {{ cdc_position() }} as position, op, coalesce(event_ts, capture_ts, kafka_ts) as event_ts,
        change_id, landing_batch_id
    from changes
    where op = 'TRUNCATE'
),

first_positions as (
    select table_id, row_key, min(position) as first_position, max(is_keyed) as is_keyed
    from relevant_events
    group by table_id, row_key
),

truncate_events as (
    select
        k.table_id, k.row_key, 'truncate' as action, cast(null as map<string, string>) as image, 0 as delta,
        t.position, 'other' as kind, t.op, t.event_ts, t.change_id, t.landing_batch_id, k.is_keyed,
        cast(null as string) as document
    from first_positions as k
    inner join truncates as t
        on k.table_id = t.table_id and k.first_position < t.position
),

all_events as (
    select
        table_id, row_key, action, image, delta, position, kind, op, event_ts, change_id, landing_batch_id,
        is_keyed, document
    from relevant_events
    union all
    select
        table_id, row_key, action, image, delta, position, kind, op, event_ts, change_id, landing_batch_id,
        is_keyed, document
    from truncate_events
),

per_key as (
    select
        table_id,
        row_key,
        max(is_keyed) as is_keyed,
        array_sort(
            collect_list(
                struct(position, action, image, delta, kind, op, event_ts, change_id, landing_batch_id, document)
            ),
            (l, r) -> case when l.position < r.position then -1 when l.position > r.position then 1 else 0 end
        ) as events
    from all_events
    group by table_id, row_key
),

-- lambda arguments and struct fields aligned by hand -- noqa: disable=LT02
{% if fold_documents %}
documents_folded as ( -- used through `fold_documents` in folded below -- noqa: ST03
    -- a key with a patch: every event becomes an upsert of the document Python folded for
    -- it, or a delete when none is left (a patch never leaves none)
    select
        table_id,
        row_key,
        is_keyed,
        case when has_patch then
            zip_with(events, from_json(document_rows, 'array<map<string, string>>'), (e, doc) -> struct(
                e.position,
                case when e.action in ('upsert', 'merge', 'patch') then
                    case when doc is null then 'delete' else 'upsert' end
                else e.action end as action,
                doc as image,
                e.delta, e.kind, e.op, e.event_ts, e.change_id, e.landing_batch_id, e.document
            ))
        else events end as events
    from (
        select
            *,
            cdc_fold_documents(case when has_patch then
                to_json(transform(events, e -> named_struct('action', e.action, 'document', e.document,
                                                            'image', e.image)))
            end) as document_rows
        from (select *, exists(events, e -> e.action = 'patch') as has_patch from per_key) as flagged
    ) as with_document_rows
),
{% endif %}

folded as (
    select
        table_id,
        row_key,
        is_keyed,
        aggregate(
            events,
            cast(array() as array<struct<
                position: struct<sort_key: array<decimal(38, 0)>, kafka_partition: int, kafka_offset: bigint,
                                 row_index: int, sub_index: int>, kind: string,
                op: string, event_ts: timestamp, change_id: string, landing_batch_id: bigint,
                was_present: boolean, present: boolean, row: map<string, string>, row_count: bigint>>),
            -- noqa: enable=LT02
            -- Changes that tie on sort_key but sit in different partitions have no known
            -- order (a vendor partitioning by key puts a key moved away by an UPDATE in the
            -- new key's partition). Where a key is created (INSERT, or an UPDATE moving a
            -- row onto it) and moved away within such a tie, the state decides: a creation
            -- onto a key that is there must come after the move (`skip` the move that
            -- follows it), a move of a key that is not there must come after the creation
            -- (`undo` the creation that follows it).
            (acc, e) -> concat(acc, array(element_at(transform(
                array(named_struct(
                    'present', coalesce(element_at(acc, -1).present, false),
                    'row', element_at(acc, -1).row,
                    'row_count', coalesce(element_at(acc, -1).row_count, cast(0 as bigint)),
                    'skip', coalesce(
                        element_at(acc, -1).position.sort_key = e.position.sort_key
                        and element_at(acc, -1).position.kafka_partition != e.position.kafka_partition
                        and e.kind = 'move_away' and element_at(acc, -1).kind = 'create'
                        and element_at(acc, -1).was_present,
                        false
                    ),
                    'undo', coalesce(
                        element_at(acc, -1).position.sort_key = e.position.sort_key
                        and element_at(acc, -1).position.kafka_partition != e.position.kafka_partition
                        and e.kind = 'create' and element_at(acc, -1).kind = 'move_away'
                        and not element_at(acc, -1).was_present,
                        false
                    )
                )),
                prev -> named_struct(
                    'position', e.position,
                    'kind', e.kind,
                    'op', e.op,
                    'event_ts', e.event_ts,
                    'change_id', e.change_id,
                    'landing_batch_id', e.landing_batch_id,
                    'was_present', prev.present,
                    'present', case
                        when prev.skip then prev.present
                        when prev.undo then false
                        when e.action in ('upsert', 'merge') then true
                        when e.action in ('delete', 'truncate') then false
                        else prev.row_count + e.delta > 0
                    end,
                    'row', case
                        when prev.skip then prev.row
                        when e.action = 'upsert' then e.image
                        when e.action = 'merge' then {{ cdc_overlay('prev.row', 'e.image') }}
                        when e.action = 'count' then coalesce(e.image, prev.row)
                        else prev.row
                    end,
                    'row_count', case
                        when prev.skip then prev.row_count
                        when prev.undo then cast(0 as bigint)
                        when e.action in ('upsert', 'merge') then cast(1 as bigint)
                        when e.action in ('delete', 'truncate') then cast(0 as bigint)
                        else greatest(prev.row_count + e.delta, cast(0 as bigint))
                    end
                )
            ), 1)))
        ) as versions
    from {{ 'documents_folded' if fold_documents else 'per_key' }}
),

exploded as (
    select
        folded.table_id,
        folded.row_key,
        folded.is_keyed,
        v.pos as version_index,
        v.version
    from folded
        lateral view posexplode(versions) v as pos, version
),

visible as (
    -- a truncate event only closes a row that exists at that moment
    select * from exploded
    where not (version.op = 'TRUNCATE' and not version.was_present)
),

versions as (
    select
        table_id,
        row_key,
        version.row as row,
        version.row_count as row_count,
        version.op as op,
        version.event_ts as valid_from,
        lead(version.event_ts) over (partition by table_id, row_key order by version_index) as valid_to,
        lead(version_index) over (partition by table_id, row_key order by version_index) is null as is_current,
        not version.present as is_deleted,
        is_keyed,
        version.position.sort_key as sort_key,
        version.position.kafka_partition as kafka_partition,
        version.position.kafka_offset as kafka_offset,
        version.position.row_index as row_index,
        version.change_id as change_id,
        version.landing_batch_id as landing_batch_id
    from visible
),

{% if is_incremental() %}
kept as (
    -- the unchanged keys of the touched tables: their partitions are rewritten whole
    select {{ cdc_history_columns() | join(', ') }}
    from {{ this }} as h
    left semi join (select distinct table_id from touched_keys) as t -- noqa: ST05
        on h.table_hash = {{ cdc_partition_hash('t.table_id') }} and h.table_id = t.table_id
    left anti join touched_keys as k
        on h.table_id = k.table_id and h.row_key = k.row_key
),

combined as (
    select {{ cdc_history_columns() | join(', ') }} from versions
    union all
    select * from kept
),
{% else %}
combined as (
    select {{ cdc_history_columns() | join(', ') }} from versions
),
{% endif %}

final as (
    select
        {{ cdc_history_columns() | join(', ') }},
        (select max(changes.landing_batch_id) from changes) as built_through_batch_id,
        {{ cdc_partition_hash('table_id') }} as table_hash
    from combined
)

select * from final

{% endif %}
