{#- `base` with every key of `patch` set to the patch's value. Key presence decides, not
    null-ness: {"c": null} in the patch sets c to NULL. -#}
{% macro cdc_overlay(base, patch) -%}
    map_concat(
        map_filter(coalesce({{ base }}, map()), (k, v) -> not map_contains_key(coalesce({{ patch }}, map()), k)),
        coalesce({{ patch }}, map())
    )
{%- endmacro %}
