{#- Post-hook of gold.cdc_current_rows: drop the partition of every table that has rows
    in `current` but no live row left in `history` (all deleted or truncated). Runs the
    statements itself and renders to nothing. -#}
{% macro cdc_drop_emptied_partitions(current, history) -%}
    {%- if execute -%}
        {%- set emptied = run_query(
            'select distinct c.table_hash from ' ~ current ~ ' as c left anti join (select distinct table_hash from '
            ~ history ~ ' where is_current and not is_deleted) as h on c.table_hash = h.table_hash'
        ) -%}
        {%- for row in emptied.rows -%}
            {%- do run_query(
                'alter table ' ~ current ~ ' drop if exists partition (table_hash = ' ~ cdc_sql_string(row[0]) ~ ')'
            ) -%}
        {%- endfor -%}
    {%- endif -%}
{%- endmacro %}
