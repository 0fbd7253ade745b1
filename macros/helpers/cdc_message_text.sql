{#- A message's value as text, also when it was landed as base64 (DataHub Blob records
    carry the DataWorks JSON as UTF-8 bytes); NULL when those bytes are not UTF-8. -#}
{% macro cdc_message_text(value='message_value', encoding='value_encoding') -%}
    case
        when {{ encoding }} = 'base64' then {{ cdc_base64_text(value) }}
        else {{ value }}
    end
{%- endmacro %}
