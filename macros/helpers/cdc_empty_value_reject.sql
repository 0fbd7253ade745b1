{#- The first `when` branch of every decoder's reject reason: a message without a value
    (NULL or empty) is a reject, unless the decoder gave it a meaning before this branch
    (a Debezium tombstone: an empty value with a key). Routing passes empty values of a
    known format to its decoder, so that this is the decoder's decision. -#}
{% macro cdc_empty_value_reject(value='message_value') -%}
            when coalesce({{ value }}, '') = '' then 'empty message value'
{%- endmacro %}
