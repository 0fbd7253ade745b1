{#- The high-water mark of an incremental model: the highest `column` it holds (0 when
    empty), as a number read when the model runs (0 while dbt parses). Models read only
    input above it. A literal, not a subquery: Delta skips the files whose statistics lie
    below it, where a subquery's value comes too late for that and every file is read. -#}
{% macro cdc_high_water_mark(relation, column='landing_batch_id') -%}
    {%- if not execute -%}
        {{- return(0) -}}
    {%- endif -%}
    {{- return(run_query('select coalesce(max(' ~ column ~ '), 0) from ' ~ relation).columns[0].values()[0] | int) -}}
{%- endmacro %}
