{#- The routed, first-delivery messages of one format that int_cdc__decoded has not
    decoded yet (landing batches above its high-water mark), with `value_text`: the value
    as text, also when it was landed as base64 (DataHub Blob records carry the DataWorks
    JSON as UTF-8 bytes). -#}
{% macro cdc_new_messages(format_id) -%}
    {%- set decoded = adapter.get_relation(
        database=none, schema=generate_schema_name('silver', none), identifier='int_cdc__decoded'
    ) if execute else none -%}
    select
        *,
        case
            -- NULL when the bytes are not UTF-8 text
            when value_encoding = 'base64' then {{ cdc_base64_text('message_value') }}
            else message_value
        end as value_text
    from {{ ref('int_cdc__messages') }}
    where vendor_format = '{{ format_id }}'
        and not is_duplicate
        and route_error is null
        {%- if decoded is not none and not flags.FULL_REFRESH %}
        and landing_batch_id > {{ cdc_high_water_mark(decoded) }}
        {%- endif %}
{%- endmacro %}
