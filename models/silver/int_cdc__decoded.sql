{{
    config(
        materialized='incremental',
        incremental_strategy='append',
        partition_by=['record_kind'],
    )
}}

{% if cdc_nothing_new(ref('int_cdc__messages'), where='not is_duplicate') %}

select * from {{ this }} where false

{% else %}

{%- set columns = cdc_decoded_columns() %}

{#- Only the decoders of formats that new messages are routed to: every decoder left out
    is a plan Spark need not analyse (seconds per build as the formats grow). dbt sees
    every ref at parse time; a run reads the ones it needs. -#}
{%- set formats = var('cdc_decoded_formats') %}
{%- if execute %}
    {%- set routed = run_query(
        'select distinct vendor_format from ' ~ ref('int_cdc__messages')
        ~ ' where not is_duplicate and route_error is null'
        ~ (' and landing_batch_id > ' ~ cdc_high_water_mark(this) if is_incremental() else '')
    ).columns[0].values() | list %}
    {%- set formats = formats | select('in', routed) | list %}
{%- endif %}

with

{% for format_id in formats %}
{{ format_id }} as (
    select {{ columns | join(', ') }} from {{ ref('stg_cdc__' ~ format_id) }}
),
{% endfor %}

routing_rejects as (
    select
        message_id, vendor_format, topic, kafka_partition, kafka_offset, kafka_ts,
        message_key, message_value, value_encoding, declared_format, format_source,
        source_file, source_line, landing_batch_id,
        'reject' as record_kind,
        0 as row_index,
        cast(null as string) as source_db,
        cast(null as string) as source_schema,
        cast(null as string) as source_table,
        cast(null as string) as table_id,
        cast(null as string) as op,
        cast(null as string) as vendor_op,
        cast(null as array<string>) as pk_columns,
        cast(null as map<string, string>) as before,
        cast(null as map<string, string>) as after,
        cast(null as boolean) as before_is_partial,
        cast(null as boolean) as after_is_partial,
        cast(null as map<string, string>) as column_types,
        cast(null as timestamp) as event_ts,
        cast(null as timestamp) as capture_ts,
        cast(null as array<decimal(38, 0)>) as sort_key,
        cast(null as string) as tx_id,
        cast(null as string) as pair_key,
        cast(null as string) as ddl_text,
        cast(null as string) as ddl_dialect,
        cast(null as string) as marker_kind,
        cast(null as string) as detail,
        route_stage as reject_stage,
        route_error as reject_reason
    from {{ ref('int_cdc__messages') }}
    where route_error is not null
        and not is_duplicate
        {% if is_incremental() %}
        and landing_batch_id > {{ cdc_high_water_mark(this) }}
        {% endif %}
),

unioned as (
    {% for format_id in formats %}
    select * from {{ format_id }}
    union all
    {% endfor %}
    select * from routing_rejects
),

keyed as (
    select
        * except (table_id),
        {{ cdc_table_id('source_db', 'source_schema', 'source_table') }} as table_id,
        {{ cdc_row_key(
            'pk_columns',
            'case when after_is_partial then ' ~ cdc_overlay('before', 'after') ~ ' else coalesce(after, before) end'
        ) }} as key_after,
        {{ cdc_row_key('pk_columns', 'before') }} as key_before
    from unioned
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

final as (
    select
        {{ columns | reject('equalto', 'table_id') | join(', ') }},
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

select * from final

{% endif %}
