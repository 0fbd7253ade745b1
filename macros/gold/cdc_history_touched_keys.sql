{#- Part 3 of gold.cdc_row_history, incremental builds only: the keys new changes touch
    and how each is folded. Most keys only get changes after their current version: they
    fold their new events onto it (`append_keys`, with that version as `seed`, or none for
    a new key). A key is folded again from all its changes (`refold_keys`) when a new
    change of it sorts at or before its current version (a late arrival, or a tie on
    sort_key whose order across partitions its state decides), when it gets an
    update-operator patch (the document fold starts from the document), or when its table
    is among `refolded_tables` (cdc_history_changes). `touched_keys` names the versions
    the MERGE replaces: every version of a refolded key (`is_current` NULL), only the
    current version of an append key with a seed (its validity ends, so it is written
    again).

    The selection is computed once, when the model renders, into a work table
    (`cdc_history_touched_keys_table`, Parquet, dropped by the model's post-hook), which the
    model reads three times and asks whether any key folds again from the start
    (`cdc_history_some_key_refolds`). A table, not a cached view: Spark does not find a
    cached plan inside a query that has CTEs of its own, and would compute the selection
    again at every reference. -#}
{% macro cdc_history_touched_keys() -%}
{%- set work_table = cdc_history_touched_keys_table() -%}
{%- if execute -%}
    {%- do run_query('drop table if exists ' ~ work_table) -%}
    {%- do run_query('create table ' ~ work_table ~ ' using parquet as with ' ~ cdc_history_changes() ~ ',\n'
        ~ cdc_history_key_events() ~ ',\n' ~ _cdc_touched_key_plan() ~ '\nselect * from touched') -%}
{%- endif -%}
refold_keys as (
    select table_id, row_key from {{ work_table }} where is_refold
),

append_keys as (
    select table_id, row_key, seed from {{ work_table }} where not is_refold
),

touched_keys as (
    select table_id, row_key, case when not is_refold then true end as is_current
    from {{ work_table }}
    where is_refold or seed is not null
)
{%- endmacro %}

{#- The selection of the touched keys, as CTEs ending in `touched` (table_id, row_key,
    seed, is_refold: one row per key). -#}
{% macro _cdc_touched_key_plan() -%}
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

touched as (
    select
        n.table_id,
        n.row_key,
        v.seed,
        n.has_patch
        or t.table_id is not null
        or (v.seed is not null and not coalesce(n.first_position.sort_key > v.seed.position.sort_key, false))
        as is_refold
    from new_keys as n
    left join current_versions as v on n.table_id = v.table_id and n.row_key = v.row_key
    left join refolded_tables as t on n.table_id = t.table_id
    union all
    -- keys of a refolded table that no new change names
    select k.table_id, k.row_key, cast(null as {{ _cdc_seed_type() }}) as seed, true as is_refold
    from refolded_table_keys as k
    left anti join new_keys as n on k.table_id = n.table_id and k.row_key = n.row_key
)
{%- endmacro %}

{#- The type of a seed: the current version a key folds its new events onto. -#}
{% macro _cdc_seed_type() -%}
struct<position: struct<sort_key: array<decimal(38, 0)>, kafka_partition: int, kafka_offset: bigint,
                        row_index: int, sub_index: int>,
       op: string, event_ts: timestamp, change_id: string, landing_batch_id: bigint, present: boolean,
       row: map<string, string>, row_count: bigint>
{%- endmacro %}

{#- The work table of the touched keys, beside the model (a build that stops before its
    post-hook leaves it; the next build replaces it). -#}
{% macro cdc_history_touched_keys_table() -%}
{{ this.schema }}.cdc_row_history__touched_keys
{%- endmacro %}

{#- True when some touched key folds again from all its changes (asked of the work table). -#}
{% macro cdc_history_some_key_refolds() -%}
    {{- return(execute and run_query(
        'select 1 from ' ~ cdc_history_touched_keys_table() ~ ' where is_refold limit 1'
    ).rows | length > 0) -}}
{%- endmacro %}
