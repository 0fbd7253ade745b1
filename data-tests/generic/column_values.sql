{#- The values of a model's columns, checked in one scan: the `not_null` columns hold no
    NULL, and each column of `accepted_values` holds only the values listed for it (or
    NULL, as dbt's accepted_values). One failure row per check that failed: the column,
    what it must hold, how many rows do not, and one such value. -#}
{% test column_values(model, not_null=[], accepted_values={}) %}

{%- set checks = [] -%}
{%- for column in not_null -%}
    {%- do checks.append({'column': column, 'expectation': 'not null', 'failing': column ~ ' is null',
                          'example': 'cast(null as string)'}) -%}
{%- endfor -%}
{%- for column, values in accepted_values.items() -%}
    {%- set listed = [] -%}
    {%- for value in values -%}
        {%- do listed.append(cdc_sql_string(value)) -%}
    {%- endfor -%}
    {%- set failing = column ~ ' not in (' ~ listed | join(', ') ~ ')' -%}
    {%- do checks.append({'column': column, 'expectation': 'one of ' ~ values | join(', '), 'failing': failing,
                          'example': 'cast(min(' ~ column ~ ') filter (where ' ~ failing ~ ') as string)'}) -%}
{%- endfor -%}
{%- if not checks -%}
    {{ exceptions.raise_compiler_error('column_values on ' ~ model ~ ': no not_null or accepted_values columns') }}
{%- endif -%}

with

counted as (
    select
        {%- for check in checks %}
        count_if({{ check.failing }}) as failing_rows_{{ loop.index }},
        {{ check.example }} as example_{{ loop.index }}
        {%- if not loop.last %},{% endif %}
        {%- endfor %}
    from {{ model }}
),

checks as (
    select
        stack(
            {{ checks | length }},
            {%- for check in checks %}
            {{ cdc_sql_string(check.column) }}, {{ cdc_sql_string(check.expectation) }},
            failing_rows_{{ loop.index }}, example_{{ loop.index }}
            {%- if not loop.last %},{% endif %}
            {%- endfor %}
        ) as (column_name, expectation, failing_rows, example_value)
    from counted
)

select column_name, expectation, failing_rows, example_value
from checks
where failing_rows > 0

{% endtest %}
