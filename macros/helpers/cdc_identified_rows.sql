{#- The CTEs that finish the decoded rows (contract columns) in relation `decoded`:
    each row gets its table_id (cdc_table_id), the keys of the row it leaves and the row
    it came from, and a deterministic change_id; a change that names no table or no row
    becomes a reject here (the last check of every decoder's output). The last CTE is
    `identified`. Used by int_cdc__decoded, and by the decoder unit tests over a VALUES
    input. -#}
{% macro cdc_identified_rows(decoded) -%}
{%- set columns = cdc_decoded_contract() | map(attribute='name') | list -%}
keyed as (
    select
        *,
        {{ cdc_table_id('source_db', 'source_schema', 'source_table') }} as table_id,
        {{ cdc_row_key(
            'pk_columns',
            'case when after_is_partial then ' ~ cdc_overlay('before', 'after') ~ ' else coalesce(after, before) end'
        ) }} as key_after,
        {{ cdc_row_key('pk_columns', 'before') }} as key_before
    from {{ decoded }}
),

guarded as (
    -- the last check of every decoder's output: a change that names no table or no row
    -- is a reject here, not a NULL key that fails the tests of gold for every table
    select
        *,
        case
            when record_kind != 'change' then null
            when table_id is null then 'the change names no table'
            when op != 'TRUNCATE' and key_after is null then 'the change names no row: no key values, no image'
        end as guard_reason
    from keyed
),

unpacked as (
    select
        * except (record_kind, reject_stage, reject_reason, guard_reason),
        case when guard_reason is null then record_kind else 'reject' end as record_kind,
        case when guard_reason is null then reject_stage else 'decode' end as reject_stage,
        coalesce(guard_reason, reject_reason) as reject_reason
    from guarded
),

identified as (
    select
        {{ columns | join(', ') }},
        case when record_kind in ('change', 'ddl', 'marker', 'half') then table_id end as table_id,
        case
            when record_kind = 'change' and op != 'TRUNCATE' then key_after
            when record_kind = 'half' then {{ cdc_row_key('pk_columns', 'after') }}
        end as row_key,
        case when (record_kind = 'change' and op = 'UPDATE') or record_kind = 'half' then key_before end
            as before_row_key,
        md5(message_id || ':' || row_index) as change_id,
        current_timestamp() as decoded_at
    from unpacked
)
{%- endmacro %}
