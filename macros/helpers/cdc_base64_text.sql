{#- The text of a value landed as base64 bytes; NULL when they are not UTF-8. -#}
{% macro cdc_base64_text(value) -%}
    try_validate_utf8(cast(try_to_binary({{ value }}, 'base64') as string))
{%- endmacro %}
