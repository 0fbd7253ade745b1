{#- Part 2 of gold.cdc_row_history: each change as key events (`key_events`), one per
    key it touches: upsert / merge / patch / delete for keyed tables, count +1 / -1 for
    tables without a key, a delete of the old key when an UPDATE moves a row; in an
    incremental build only the events of `touched_keys` (`relevant_events`). Then per key
    its events in change order (`per_key`), every TRUNCATE of its table after the key's
    first event among them as a truncate event. Reads `changes` (and `touched_keys`) of
    cdc_history_changes. -#}
{% macro cdc_history_key_events() -%}
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
    from changes as c
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
    -- the events of the touched keys: they are folded again from the start
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

table_truncates as (
    select
        table_id,
        collect_list(struct(
            {{ cdc_position() }} as position, op, coalesce(event_ts, capture_ts, kafka_ts) as event_ts, change_id,
            landing_batch_id
        )) as truncates
    from changes
    where op = 'TRUNCATE'
    group by table_id
),

key_event_lists as (
    select
        table_id,
        row_key,
        max(is_keyed) as is_keyed,
        min(position) as first_position,
        collect_list(
            struct(position, action, image, delta, kind, op, event_ts, change_id, landing_batch_id, document)
        ) as events
    from relevant_events
    group by table_id, row_key
),

per_key as (
    -- each TRUNCATE of the table after the key's first event becomes one of its events
    select
        k.table_id,
        k.row_key,
        k.is_keyed,
        array_sort(
            concat(k.events, transform(
                filter(coalesce(t.truncates, array()), tr -> tr.position > k.first_position),
                tr -> struct(
                    tr.position, 'truncate' as action, cast(null as map<string, string>) as image, 0 as delta,
                    'other' as kind, tr.op, tr.event_ts, tr.change_id, tr.landing_batch_id,
                    cast(null as string) as document
                )
            )),
            (l, r) -> case when l.position < r.position then -1 when l.position > r.position then 1 else 0 end
        ) as events
    from key_event_lists as k
    left join table_truncates as t on k.table_id = t.table_id
)
{%- endmacro %}
