{#- True when this incremental model has nothing to do: it exists already and `probe`
    (a query returning a row for each piece of new input) returns no row. The model then
    selects no rows from itself, a plan Spark builds in no time, instead of its full
    query (which, for the decoders, takes seconds to analyse even when no row is new). -#}
{% macro cdc_nothing_new(probe) -%}
    {%- if not execute or not is_incremental() or flags.FULL_REFRESH -%}
        {{- return(false) -}}
    {%- endif -%}
    {%- set found = run_query('select 1 from (' ~ probe ~ ') as probe limit 1') -%}
    {{- return(found.rows | length == 0) -}}
{%- endmacro %}
