{#- The format a topic is routed to by seeds/topic_formats.csv: the first row (by
    `priority`) whose `topic_pattern`, a Java regular expression, matches the whole topic.
    Compiled into one CASE expression from the seed's rows when the model runs. -#}
{% macro cdc_route_topic(topic) -%}
    {%- set rows = [] -%}
    {%- if execute -%}
        {%- set result = run_query(
            'select topic_pattern, format_id from ' ~ ref('topic_formats') ~ ' order by priority'
        ) -%}
        {%- set rows = result.rows -%}
    {%- endif -%}
    {%- if rows | length == 0 -%}
        cast(null as string)
    {%- else -%}
        case
        {%- for row in rows %}
            when {{ topic }} rlike {{ cdc_sql_string('^(?:' ~ row[0] ~ ')$') }} then {{ cdc_sql_string(row[1]) }}
        {%- endfor %}
        end
    {%- endif -%}
{%- endmacro %}
