{#- The table a TRUNCATE statement names (`db.table` or `table`, quotes removed), or ''
    when `sql` is not a TRUNCATE. -#}
{% macro cdc_truncated_table(sql) -%}
    regexp_replace(
        regexp_extract({{ sql }}, '(?is)^\\s*truncate\\s+(?:table\\s+)?([^\\s;(]+)', 1), '[`"\\[\\]]', ''
    )
{%- endmacro %}
