{#- True when the JSON path exists in the variant, also when its value is JSON null. -#}
{% macro cdc_has(v, path) -%}
    (try_variant_get({{ v }}, '{{ path }}', 'variant') is not null)
{%- endmacro %}
