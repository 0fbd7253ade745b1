{#- Override of dbt-spark's seed row loader. With the `session` method, dbt-spark pastes
    bound values into the statement without escaping, so a backslash (regular
    expressions in topic_formats.csv) or a quote (O'Brien, JSON) is lost or breaks the
    statement. Here every value is written as an escaped Spark SQL literal. -#}
{% macro spark__load_csv_rows(model, agate_table) %}
    {%- set column_override = model['config'].get('column_types', {}) -%}
    {%- set statements = [] -%}
    {%- for chunk in agate_table.rows | batch(get_batch_size()) -%}
        {%- set sql -%}
            insert into {{ this.render() }} values
            {% for row in chunk -%}
                ({%- for col_name in agate_table.column_names -%}
                    {%- set type = column_override.get(col_name, adapter.convert_type(agate_table, loop.index0)) -%}
                    {%- set value = row[loop.index0] -%}
                    cast({{ 'null' if value is none else cdc_sql_string(value | string) }} as {{ type }})
                    {%- if not loop.last %}, {% endif -%}
                {%- endfor -%})
                {%- if not loop.last %},{% endif %}
            {% endfor -%}
        {%- endset -%}
        {%- do adapter.add_query(sql, abridge_sql_log=True) -%}
        {%- if loop.first -%}{%- do statements.append(sql) -%}{%- endif -%}
    {%- endfor -%}
    {{ return(statements[0] if statements else '') }}
{% endmacro %}
