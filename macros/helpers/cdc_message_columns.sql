{#- The first columns of a decoder's row: the message it came from, as routing passed
    it on, with the key and value kept only on rejects (bronze keeps them for the rest),
    then record_kind. Expects the columns of cdc_new_messages and `record_kind`. -#}
{% macro cdc_message_columns(format_id) -%}
        message_id,
        '{{ format_id }}' as vendor_format,
        topic,
        kafka_partition,
        kafka_offset,
        kafka_ts,
        case when record_kind = 'reject' then message_key end as message_key,
        case when record_kind = 'reject' then message_value end as message_value,
        value_encoding,
        declared_format,
        format_source,
        source_file,
        source_line,
        landing_batch_id,
        record_kind
{%- endmacro %}
