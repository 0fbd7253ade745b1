{{
    config(
        materialized='incremental',
        incremental_strategy='append',
        partition_by=['record_kind'],
        on_schema_change='fail',
    )
}}

{#- The formats of the new messages, and whether each was routed to its decoder: one
    query, which also tells that nothing is new (no row) -#}
{%- set new_formats = cdc_new_rows(ref('stg_cdc__messages'), 'vendor_format, route_error is null',
                                   where='not is_duplicate') %}

{% if is_incremental() and not new_formats %}

select * from {{ this }} where false

{% else %}

{%- set columns = cdc_decoded_contract() | map(attribute='name') | list %}

{#- Only the decoders of formats that new messages are routed to: every decoder left out
    is a plan Spark need not analyse (seconds per build as the formats grow). dbt sees
    every ref at parse time; a run reads the ones it needs. The batch window (landing
    batches above this model's high-water mark) is a literal, so that Spark pushes it
    through each decoder (they work one message at a time) down to the messages it reads. -#}
{%- set routed = new_formats | selectattr(1) | map(attribute=0) | list %}
{%- set formats = var('cdc_decoded_formats') %}
{%- set formats = formats | select('in', routed) | list if execute else formats %}
{%- set window = 'landing_batch_id > ' ~ cdc_high_water_mark(this) if is_incremental() else 'true' %}

with

{% for format_id in formats %}
{{ format_id }} as (
    select {{ cdc_decoded_cast() }}
    from {{ ref('stg_cdc__' ~ format_id) }}
    where {{ window }}
),
{% endfor %}

routing_rejects as (
    select
        message_id, vendor_format, topic, kafka_partition, kafka_offset, kafka_ts,
        message_key, message_value, value_encoding, declared_format, format_source,
        source_file, source_line, landing_batch_id,
        'reject' as record_kind,
        0 as row_index,
        route_stage as reject_stage,
        route_error as reject_reason
    from {{ ref('stg_cdc__messages') }}
    where route_error is not null
        and not is_duplicate
        and {{ window }}
),

routing_reject_rows as (
    -- a routing reject has its message and reason, nothing decoded
    select {{ cdc_decoded_row(left_out=[
        'source_db', 'source_schema', 'source_table', 'op', 'vendor_op', 'pk_columns', 'before',
        'after', 'before_is_partial', 'after_is_partial', 'column_types', 'type_system', 'event_ts',
        'capture_ts', 'sort_key', 'tx_id', 'pair_key', 'ddl_text', 'ddl_dialect', 'ddl_meta',
        'marker_kind', 'detail', 'document', 'update_operators'
    ]) }}
    from routing_rejects
),

unioned as (
    {% for format_id in formats %}
    select * from {{ format_id }}
    union all
    {% endfor %}
    select * from routing_reject_rows
),

{{ cdc_identified_rows('unioned') }},

final as (
    select * from identified
)

select * from final

{% endif %}
