{#- Part 3 of gold.cdc_row_history, incremental builds only: the keys new changes touch
    (`new_keys`) and how each is folded. Most keys only get changes after their current
    version: they fold their new events onto it (`append_keys`, with that version as
    `seed`, or none for a new key). A key is folded again from all its changes
    (`refold_keys`) when a new change of it sorts at or before its current version (a
    late arrival, or a tie on sort_key whose order across partitions its state decides),
    when it gets an update-operator patch (the document fold starts from the document),
    or when its table is among `refolded_tables` (cdc_history_changes). `touched_keys`
    names the versions the MERGE replaces: every version of a refolded key
    (`is_current` NULL), only the current version of an append key with a seed (its
    validity ends, so it is written again). -#}
{% macro cdc_history_touched_keys() -%}
new_keys as (
    select
        table_id,
        row_key,
        min(position) as first_position,
        bool_or(action = 'patch') as has_patch
    from new_key_events
    group by table_id, row_key
),

current_versions as (
    select
        h.table_id,
        h.row_key,
        named_struct(
            'position', {{ cdc_position('h') }},
            'op', h.op,
            'event_ts', h.valid_from,
            'change_id', h.change_id,
            'landing_batch_id', h.landing_batch_id,
            'present', not h.is_deleted,
            'row', h.row,
            'row_count', h.row_count
        ) as seed
    from {{ this }} as h
    left semi join new_keys on h.table_id = new_keys.table_id and h.row_key = new_keys.row_key
    where h.is_current
),

refold_keys as (
    select n.table_id, n.row_key
    from new_keys as n
    left join current_versions as v on n.table_id = v.table_id and n.row_key = v.row_key
    left join refolded_tables as t on n.table_id = t.table_id
    where n.has_patch
        or t.table_id is not null
        or (v.seed is not null and not coalesce(n.first_position.sort_key > v.seed.position.sort_key, false))
    union
    select table_id, row_key from refolded_table_keys
),

append_keys as (
    select n.table_id, n.row_key, v.seed
    from new_keys as n
    left join current_versions as v on n.table_id = v.table_id and n.row_key = v.row_key
    left anti join refold_keys as r on n.table_id = r.table_id and n.row_key = r.row_key
),

touched_keys as (
    select table_id, row_key, cast(null as boolean) as is_current from refold_keys
    union all
    select table_id, row_key, true as is_current from append_keys where seed is not null
)
{%- endmacro %}
