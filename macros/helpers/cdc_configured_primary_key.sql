{#- The primary key the project configures for a table, for formats whose messages do
    not name one (DataHub Tuple, DRS Avro): var `cdc_primary_keys`, a mapping of table id
    (lower-case, dot-joined, as in silver `table_id`) to its key columns, e.g.

        vars:
          cdc_primary_keys:
            shop.orders: [order_id]
            shop.order_lines: [order_id, line_no]

    Returns an array<string> SQL expression: the configured columns of `table_id` (a SQL
    expression), or an empty array when the table has none configured (gold then keeps
    multiset semantics for it). -#}
{% macro cdc_configured_primary_key(table_id) -%}
    {%- set keys = var('cdc_primary_keys', {}) or {} -%}
    {%- if keys | length == 0 -%}
    cast(array() as array<string>)
    {%- else -%}
    coalesce(
        try_element_at(
            map(
                {%- for table, columns in keys.items() %}
                {{ cdc_sql_string(table | lower) }},
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
