{#- The primary key the project declares for a table (macro cdc_declared_tables: var
    `cdc_tables`, or the older `cdc_primary_keys`), for formats whose messages do not name
    one (DataHub Tuple, DRS Avro, Shareplex Json without ROWIDs).

    Returns an array<string> SQL expression: the declared columns of `table_id` (a SQL
    expression), or an empty array when the table declares none (gold then keeps
    multiset semantics for it). -#}
{% macro cdc_configured_primary_key(table_id) -%}
    {%- set keys = {} -%}
    {%- for table, spec in cdc_declared_tables().items() if spec.primary_key -%}
        {%- do keys.update({table: spec.primary_key}) -%}
    {%- endfor -%}
    {%- if keys | length == 0 -%}
    cast(array() as array<string>)
    {%- else -%}
    coalesce(
        try_element_at(
            map(
                {%- for table, columns in keys.items() %}
                {{ cdc_sql_string(table) }},
                cast(array({% for c in columns %}{{ cdc_sql_string(c) }}{{ ', ' if not loop.last }}{% endfor %}) as array<string>)
                {{- ',' if not loop.last }}
                {%- endfor %}
            ),
            {{ table_id }}
        ),
        cast(array() as array<string>)
    )
    {%- endif -%}
{%- endmacro %}
