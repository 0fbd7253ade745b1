{#- The high-water mark of an incremental model: the highest `column` it holds (0 when
    empty). Models read only input above it. -#}
{% macro cdc_high_water_mark(relation, column='landing_batch_id') -%}
    (select coalesce(max({{ column }}), 0) from {{ relation }})
{%- endmacro %}
