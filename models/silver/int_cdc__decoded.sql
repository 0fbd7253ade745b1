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
{%- set out_columns = columns | reject('equalto', 'table_id') | list
    + ['table_id', 'row_key', 'before_row_key', 'change_id', 'decoded_at'] %}

with

{% for format_id in var('cdc_decoded_formats') %}
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
    {% for format_id in var('cdc_decoded_formats') %}
    select * from {{ format_id }}
    union all
    {% endfor %}
    select * from routing_rejects
),

keyed as (
    select
        * except (table_id),
        {{ cdc_table_id('source_db', 'source_schema', 'source_table') }} as table_id,
        {{ cdc_row_key('pk_columns', 'case when after_is_partial then ' ~ cdc_overlay('before', 'after') ~ ' else coalesce(after, before) end') }}
            as key_after,
        {{ cdc_row_key('pk_columns', 'before') }} as key_before
    from unioned
),

decided as (
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
    from keyed
),

{#- Update halves (record_kind 'half'): the before and the after image of one UPDATE
    sent as two messages that share `pair_key`. Every half is kept (partition 'half',
    view cdc_update_halves); once both halves of a pair have arrived, in this run or
    across runs, they also become ONE change: the before half's image and key, the after
    half's image, position and message. A half whose partner has not arrived yet waits;
    it is paired by the run that brings the partner. -#}
all_halves as (
    select * from decided where record_kind = 'half'
    {%- if is_incremental() %}
    union all
    select {{ out_columns | join(', ') }}
    from {{ this }} as waiting
    where record_kind = 'half'
        and not exists (
            select 1 from {{ this }} as paired
            where paired.record_kind = 'change'
                and paired.pair_key = waiting.pair_key
                and paired.vendor_format = waiting.vendor_format
                and paired.table_id <=> waiting.table_id
        )
    {%- endif %}
),

pairs as (
    select
        after_half.* except (record_kind, op, vendor_op, before, before_is_partial, before_row_key,
                             landing_batch_id, change_id),
        'change' as record_kind,
        'UPDATE' as op,
        before_half.vendor_op || '+' || after_half.vendor_op as vendor_op,
        before_half.before,
        before_half.before_is_partial,
        before_half.before_row_key,
        greatest(before_half.landing_batch_id, after_half.landing_batch_id) as landing_batch_id,
        after_half.change_id,
        row_number() over (
            partition by after_half.vendor_format, after_half.table_id, after_half.pair_key
            order by after_half.kafka_partition, after_half.kafka_offset,
                before_half.kafka_partition, before_half.kafka_offset
        ) as pair_rank
    from all_halves as after_half
    inner join all_halves as before_half
        on after_half.vendor_format = before_half.vendor_format
        and after_half.table_id <=> before_half.table_id
        and after_half.pair_key = before_half.pair_key
    where after_half.after is not null
        and before_half.after is null
),

final as (
    select {{ out_columns | join(', ') }} from decided
    union all
    select {{ out_columns | join(', ') }} from pairs where pair_rank = 1
)

select * from final

{% endif %}
