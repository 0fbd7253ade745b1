{{ config(materialized='view') }}

{#- Data quality of the typed models: per source table and column, how many current
    values (gold.cdc_current_rows) do not fit the column's type, which the typed models
    (cdc_table ...) therefore show as NULL, with one example. Columns with no failure are
    listed too (cast_failures 0). The test on cast_failures warns in every build that
    finds one. -#}

{%- set spark_types = [] -%}
{%- if execute -%}
    {%- set found = run_query(
        'select distinct table_type from ' ~ ref('cdc_table_columns')
        ~ ' where is_current_type and table_type != ' ~ cdc_sql_string('string')
    ) -%}
    {%- set spark_types = found.columns[0].values() | list -%}
{%- endif %}

with

columns as (
    select table_id, column_name, table_type
    from {{ ref('cdc_table_columns') }}
    where is_current_type and not is_dropped
),

column_values as (
    select
        current_rows.table_id,
        current_rows.row_key,
        current_value.column_name,
        current_value.value_text
    from {{ ref('cdc_current_rows') }} as current_rows
        lateral view explode(current_rows.row) current_value as column_name, value_text
    where current_value.value_text is not null
),

checked as (
    select
        columns.table_id,
        columns.column_name,
        columns.table_type,
        column_values.row_key,
        column_values.value_text,
        {%- if spark_types %}
        case columns.table_type
        {%- for spark_type in spark_types %}
            when {{ cdc_sql_string(spark_type) }} then {{ cdc_cast_text('column_values.value_text', spark_type) }} is null
            {%- endfor %}
            else false
        end
        {%- else %}
        -- no column of the lake has a type other than string: nothing can fail to cast
        false
        {%- endif %} as is_cast_failure
    from columns
    inner join column_values
        on columns.table_id = column_values.table_id and columns.column_name = column_values.column_name
),

final as (
    select
        table_id,
        column_name,
        table_type,
        count(*) as values_checked,
        count_if(is_cast_failure) as cast_failures,
        min_by(value_text, row_key) filter (where is_cast_failure) as example_value,
        min(row_key) filter (where is_cast_failure) as example_row_key
    from checked
    group by table_id, column_name, table_type
)

select * from final
