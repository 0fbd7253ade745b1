{#- The high-water mark of an incremental model: the highest `column` it holds (0 when
    empty), as a number read when the model runs (0 while dbt parses). Models read only
    input above it. A literal, not a subquery: Delta skips the files whose statistics lie
    below it, where a subquery's value comes too late for that and every file is read.
    Read once per relation and column while a model renders (kept in the model's node,
    `model['cdc_marks']`): the model's test for new input and its filters share one query. -#}
{% macro cdc_high_water_mark(relation, column='landing_batch_id') -%}
    {%- if not execute -%}
        {{- return(0) -}}
    {%- endif -%}
    {%- set marks = model.setdefault('cdc_marks', {}) -%}
    {%- set key = relation ~ '.' ~ column -%}
    {%- if key not in marks -%}
        {%- do marks.update({key: run_query(
            'select coalesce(max(' ~ column ~ '), 0) from ' ~ relation
        ).columns[0].values()[0] | int}) -%}
    {%- endif -%}
    {{- return(marks[key]) -}}
{%- endmacro %}
