{{
    config(
        materialized='incremental',
        incremental_strategy='insert_overwrite',
        partition_by=['table_id'],
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
    document stores (drs_mongo_json): an UPDATE whose partial after image comes with
                    update operators (cdc_changes.document) -> patch; the documents of
                    keys that got a patch fold in Python (UDF cdc_fold_documents, which
                    applies $set / $unset / dotted paths / $inc ... the way MongoDB does),
                    the others in SQL like every other key

    Incremental runs fold again only the keys that new changes touch (every key of a
    table that got a new TRUNCATE), from all their changes, so changes that arrive late
    or out of order across partitions land in their true place; the partitions
    (table_id) of the touched tables are rewritten, the others are left alone.
-#}

{% if cdc_nothing_new(ref('cdc_changes'), mark_column='built_through_batch_id') %}

select * from {{ this }} where false

{% else %}

{#- Python folds documents only when some change is an update-operator patch -#}
{%- set fold_documents = execute and (run_query(
    'select 1 from ' ~ ref('cdc_changes') ~ ' where after_is_partial and document is not null limit 1'
).rows | length > 0) %}

with

changes as (
    select * from {{ ref('cdc_changes') }}
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
        c.op,
        coalesce(c.event_ts, c.capture_ts, c.kafka_ts) as event_ts,
        c.change_id,
        c.landing_batch_id,
        size(c.pk_columns) > 0 as is_keyed,
        c.document
    from folded_changes as c
    -- arguments aligned by hand: sqlfluff allows no hanging indents -- noqa: disable=LT02
    lateral view explode(
        case
            when c.op = 'TRUNCATE' then array()
            when size(c.pk_columns) = 0 and c.op = 'UPDATE' and c.before_row_key = c.row_key then
                -- an update that leaves an unkeyed row as it was: one version, count unchanged
                array(named_struct('row_key', c.row_key, 'action', 'count', 'image', c.after,
                                   'delta', 0, 'sub_index', 1))
            when size(c.pk_columns) = 0 then
                filter(array(
                    case when c.op in ('DELETE', 'UPDATE') and c.before is not null then
                        named_struct('row_key', coalesce(c.before_row_key, c.row_key), 'action', 'count',
                                     'image', c.before, 'delta', -1, 'sub_index', 0) end,
                    case when c.op in ('INSERT', 'SNAPSHOT', 'UPDATE') then
                        named_struct('row_key', c.row_key, 'action', 'count',
                                     'image', c.after, 'delta', 1, 'sub_index', 1) end
                ), x -> x is not null)
            when c.op in ('INSERT', 'SNAPSHOT') then
                array(named_struct('row_key', c.row_key, 'action', 'upsert', 'image', c.after,
                                   'delta', 0, 'sub_index', 0))
            when c.op = 'DELETE' then
                array(named_struct('row_key', c.row_key, 'action', 'delete',
                                   'image', cast(null as map<string, string>), 'delta', 0, 'sub_index', 0))
            else
                filter(array(
                    case when c.before_row_key is not null and c.before_row_key != c.row_key then
                        named_struct('row_key', c.before_row_key, 'action', 'delete',
                                     'image', cast(null as map<string, string>), 'delta', 0, 'sub_index', 0) end,
                    named_struct(
                        'row_key', c.row_key,
                        'action', case
                            when c.after_is_partial and c.document is not null then 'patch'
                            when c.after_is_partial then 'merge'
                            else 'upsert'
                        end,
                        'image', case
                            when c.after_is_partial and c.before_row_key is not null and c.before_row_key != c.row_key
                                then {{ cdc_overlay('c.before', 'c.after') }}
                            else c.after
                        end,
                        'delta', 0, 'sub_index', 1)
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
        t.position, t.op, t.event_ts, t.change_id, t.landing_batch_id, k.is_keyed,
        cast(null as string) as document
    from first_positions as k
    inner join truncates as t
        on k.table_id = t.table_id and k.first_position < t.position
),

all_events as (
    select
        table_id, row_key, action, image, delta, position, op, event_ts, change_id, landing_batch_id, is_keyed,
        document
    from relevant_events
    union all
    select
        table_id, row_key, action, image, delta, position, op, event_ts, change_id, landing_batch_id, is_keyed,
        document
    from truncate_events
),

per_key as (
    select
        table_id,
        row_key,
        max(is_keyed) as is_keyed,
        array_sort(
            collect_list(struct(position, action, image, delta, op, event_ts, change_id, landing_batch_id, document)),
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
                e.delta, e.op, e.event_ts, e.change_id, e.landing_batch_id, e.document
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
                                 row_index: int, sub_index: int>,
                op: string, event_ts: timestamp, change_id: string, landing_batch_id: bigint,
                was_present: boolean, present: boolean, row: map<string, string>, row_count: bigint>>),
            -- noqa: enable=LT02
            (acc, e) -> concat(acc, array(element_at(transform(
                array(named_struct(
                    'present', coalesce(element_at(acc, -1).present, false),
                    'row', element_at(acc, -1).row,
                    'row_count', coalesce(element_at(acc, -1).row_count, cast(0 as bigint))
                )),
                prev -> named_struct(
                    'position', e.position,
                    'op', e.op,
                    'event_ts', e.event_ts,
                    'change_id', e.change_id,
                    'landing_batch_id', e.landing_batch_id,
                    'was_present', prev.present,
                    'present', case
                        when e.action in ('upsert', 'merge') then true
                        when e.action in ('delete', 'truncate') then false
                        else prev.row_count + e.delta > 0
                    end,
                    'row', case
                        when e.action = 'upsert' then e.image
                        when e.action = 'merge' then {{ cdc_overlay('prev.row', 'e.image') }}
                        when e.action = 'count' then coalesce(e.image, prev.row)
                        else prev.row
                    end,
                    'row_count', case
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
        on h.table_id = t.table_id
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
        {{ cdc_history_columns() | reject('equalto', 'table_id') | join(', ') }},
        (select max(changes.landing_batch_id) from changes) as built_through_batch_id,
        table_id
    from combined
)

select * from final

{% endif %}
