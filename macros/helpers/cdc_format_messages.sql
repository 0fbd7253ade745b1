{#- The messages a decoder reads: the routed, first-delivery messages of one format from
    stg_cdc__messages, as an aliased subquery to pass to decode_<format>. No batch
    window: int_cdc__decoded filters the decoder's output by landing batch, and Spark
    pushes that filter down to this scan (every decoder works one message at a time). -#}
{% macro cdc_format_messages(format_id) -%}
    (
        select * from {{ ref('stg_cdc__messages') }}
        where vendor_format = '{{ format_id }}' and not is_duplicate and route_error is null
    ) as format_messages
{%- endmacro %}
