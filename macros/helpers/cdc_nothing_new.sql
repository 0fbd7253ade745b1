{#- True when this incremental model has nothing to do: it exists already and `upstream`
    has no row (matching `where`) whose `column` is above this model's high-water mark
    (`mark_column`). The model then selects no rows from itself, a plan Spark builds in no
    time, instead of its full query (which, for the decoders, takes seconds to analyse
    even when no row is new). -#}
{% macro cdc_nothing_new(upstream, column='landing_batch_id', mark_column='landing_batch_id', where='true') -%}
    {%- if not execute or not is_incremental() or flags.FULL_REFRESH -%}
        {{- return(false) -}}
    {%- endif -%}
    {%- set found = run_query(
        'select 1 from ' ~ upstream ~ ' where (' ~ where ~ ') and ' ~ column ~ ' > '
        ~ cdc_high_water_mark(this, mark_column) ~ ' limit 1'
    ) -%}
    {{- return(found.rows | length == 0) -}}
{%- endmacro %}
