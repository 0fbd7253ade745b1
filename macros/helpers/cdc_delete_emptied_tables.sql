{#- Post-hook of gold.cdc_current_rows: delete the rows of every table that has rows in
    `current` but no live row left in `history` (all deleted or truncated). The model
    overwrites only the partitions it selects rows for, and such a table has none. One
    Delta DELETE (deletion vectors: no file is rewritten), only when there is a table to
    empty; renders to nothing. -#}
{% macro cdc_delete_emptied_tables(current, history) -%}
    {%- if execute -%}
        {%- set emptied = run_query(
            'select distinct c.table_hash from ' ~ current ~ ' as c left anti join (select distinct table_hash from '
            ~ history ~ ' where is_current and not is_deleted) as h on c.table_hash = h.table_hash'
        ).columns[0].values() | list -%}
        {%- if emptied -%}
            {%- set hashes = [] -%}
            {%- for table_hash in emptied -%}
                {%- do hashes.append(cdc_sql_string(table_hash)) -%}
            {%- endfor -%}
            {%- do run_query('delete from ' ~ current ~ ' where table_hash in (' ~ hashes | join(', ') ~ ')') -%}
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}
