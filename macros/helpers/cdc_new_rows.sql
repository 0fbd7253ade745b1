{#- The distinct values of `expressions` (SQL, separated by commas) over the rows of
    `upstream` (matching `where`) that this model has not built yet: those whose `column`
    is above the model's high-water mark (`mark_column`), or every row when the model
    builds from scratch. A list of rows, each a list of values; empty while dbt parses.
    One query tells a model both whether it has anything to do (no row: nothing new) and
    what its new input holds, where cdc_nothing_new and a second query would ask twice. -#}
{% macro cdc_new_rows(
    upstream, expressions, column='landing_batch_id', mark_column='landing_batch_id', where='true'
) -%}
    {%- if not execute -%}
        {{- return([]) -}}
    {%- endif -%}
    {%- set window = column ~ ' > ' ~ cdc_high_water_mark(this, mark_column) if is_incremental() else 'true' -%}
    {%- set found = run_query(
        'select distinct ' ~ expressions ~ ' from ' ~ upstream ~ ' where (' ~ where ~ ') and ' ~ window
    ) -%}
    {{- return(found.rows | map('list') | list) -}}
{%- endmacro %}
