{#- Vendor type name without length, precision and sign modifiers, lower-case:
    "DOUBLE PRECISION(10,7) unsigned zerofill" -> "double precision", "bigint(20)" -> "bigint". -#}
{% macro cdc_base_type(type_text) -%}
    trim(regexp_replace(lower(regexp_extract({{ type_text }}, '^([^(]*)', 1)), '\\b(unsigned|signed|zerofill)\\b', ''))
{%- endmacro %}
