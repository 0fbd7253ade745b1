{#- Part 4 of gold.cdc_row_history: per key its events in change order (`per_key`), every
    TRUNCATE of its table after the key's first event among them as a truncate event. A
    full build takes every key event; an incremental one all events of `refold_keys` (read
    only when `some_key_refolds`) and the new events of `append_keys`, each with its `seed`
    (cdc_history_touched_keys). -#}
{% macro cdc_history_per_key(some_key_refolds) -%}
{%- set events_after = 'coalesce(a.seed.position, k.first_position)' if is_incremental() else 'k.first_position' %}
{% if is_incremental() %}
relevant_events as (
    {#- all changes are read only when some key folds again from the start -#}
    {% if some_key_refolds %}
    select key_events.*
    from key_events
    left semi join refold_keys
        on key_events.table_id = refold_keys.table_id and key_events.row_key = refold_keys.row_key
    union all
    {% endif %}
    select new_key_events.*
    from new_key_events
    left semi join append_keys
        on new_key_events.table_id = append_keys.table_id and new_key_events.row_key = append_keys.row_key
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
    -- each TRUNCATE of the table after the key's first event (after its seed, when it
    -- has one) becomes one of its events
    select
        k.table_id,
        k.row_key,
        k.is_keyed,
        {% if is_incremental() -%}
        a.seed,
        {% endif -%}
        array_sort(
            concat(k.events, transform(
                filter(coalesce(t.truncates, array()), tr -> tr.position > {{ events_after }}),
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
    {% if is_incremental() -%}
    left join append_keys as a on k.table_id = a.table_id and k.row_key = a.row_key
    {%- endif %}
)
{%- endmacro %}
