{{
    config(
        materialized='incremental',
        incremental_strategy='append',
        partition_by=['vendor_format'],
    )
}}
-- depends_on: {{ ref('topic_formats') }}

{% if cdc_nothing_new(source('bronze', 'kafka_messages')) %}

select * from {{ this }} where false

{% else %}

with

bronze as (
    select * from {{ source('bronze', 'kafka_messages') }}
    {% if is_incremental() %}
    where landing_batch_id > {{ cdc_high_water_mark(this) }}
    {% endif %}
),

identified as (
    select
        *,
        md5(concat_ws(
            char(1), topic, coalesce(message_key, char(0)), coalesce(message_value, char(0))
        )) as message_id,
        {{ cdc_route_topic('topic') }} as routed_format
    from bronze
),

resolved as (
    select
        *,
        case
            when declared_format is not null then 'declared'
            when routed_format is not null then 'topic_formats'
            else 'shape'
        end as format_source,
        coalesce(
            declared_format, routed_format, {{ cdc_detect_format('message_value', 'value_encoding', 'message_key') }}
        ) as resolved_format
    from identified
),

{% if is_incremental() %}
earlier as (
    -- the earlier messages with the id of a new one: a lookup of the new ids (a broadcast
    -- of the few), not a shuffle of every id ever landed
    select distinct landed.message_id
    from {{ this }} as landed
    left semi join identified on landed.message_id = identified.message_id
    where not landed.is_duplicate
),
{% endif %}

ranked as (
    select
        resolved.*,
        row_number() over (
            partition by resolved.message_id
            order by resolved.landing_batch_id, resolved.kafka_partition, resolved.kafka_offset, resolved.source_line
        ) as copy_rank,
        {% if is_incremental() %}
        earlier.message_id is not null
        {% else %}
        false
        {% endif %} as seen_before
    from resolved
    {% if is_incremental() %}
    -- ST11 (unused join) misreads the rendering in which seen_before is false
    left join earlier on resolved.message_id = earlier.message_id -- noqa: ST11
    {% endif %}
),

final as (
    select
        message_id,
        topic,
        kafka_partition,
        kafka_offset,
        kafka_ts,
        message_key,
        case when copy_rank > 1 or seen_before then null else message_value end as message_value,
        value_encoding,
        headers,
        declared_format,
        format_source,
        case when resolved_format = '?canal' then null else resolved_format end as vendor_format,
        source_file,
        source_line,
        landed_at,
        landing_batch_id,
        copy_rank > 1 or seen_before as is_duplicate,
        case when land_error is not null then 'land' else 'route' end as route_stage,
        case
            when land_error is not null then land_error
            when resolved_format = '?canal' then
                'Canal-family message: canal_json, canal_json_legacy, drs_json and drs_json_c '
                || 'cannot be told apart by shape; declare the format with `cdc land --format` '
                || 'or a seeds/topic_formats.csv row for topic ' || topic
            when resolved_format is null and (message_value is null or message_value = '') then
                'empty message value'
            when resolved_format is null then
                'no format: topic ' || topic || ' matches no seeds/topic_formats.csv row and '
                || 'the message shape matches no detection rule'
            -- the list of decoded formats renders as one long line -- noqa: disable=LT05
            when resolved_format not in ({% for f in var('cdc_decoded_formats') %}'{{ f }}'{% if not loop.last %}, {% endif %}{% endfor %}) then 'format ' || resolved_format || ' has no decoder in this version'
            -- noqa: enable=LT05
            when octet_length(message_value) > {{ var('cdc_max_message_bytes') }} then
                'message value is ' || octet_length(message_value) || ' bytes, over the limit of '
                || {{ var('cdc_max_message_bytes') }} || ' (var cdc_max_message_bytes)'
        end as route_error
    from ranked
)

select * from final

{% endif %}
