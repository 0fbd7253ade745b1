{#- Part 2 of gold.cdc_row_history: each change as key events, one per key it touches:
    upsert / merge / patch / delete for keyed tables, count +1 / -1 for tables without a
    key, a delete of the old key when an UPDATE moves a row. `key_events` holds the events
    of all `changes`; an incremental build also gives those of `new_changes`
    (`new_key_events`). Reads the CTEs of cdc_history_changes. -#}
{% macro cdc_history_key_events() -%}
key_events as (
{{ _cdc_key_events('changes') }}
)
{%- if is_incremental() %},

new_key_events as (
{{ _cdc_key_events('new_changes') }}
)
{%- endif %}
{%- endmacro %}

{#- The key events of the changes of CTE `source`, as a select. -#}
{% macro _cdc_key_events(source) -%}
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
    from {{ source }} as c
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
-- noqa: enable=LT02
{%- endmacro %}
