{#- True when the JSON path exists and its value is not JSON null. -#}
{% macro cdc_has_value(v, path) -%}
    (try_variant_get({{ v }}, '{{ path }}', 'variant') is not null
        and not is_variant_null(try_variant_get({{ v }}, '{{ path }}', 'variant')))
{%- endmacro %}
