{#- canal_json: Canal FlatMessage and DTS "Canal Json" (instances created or restarted
    since 2022-03-20). `data` = rows (after image; DELETE: the deleted rows), `old` = per
    row the before values of the changed columns only. See _canal_family.sql. -#}
{% macro decode_canal_json(messages) -%}
    {{ decode_canal_family('canal_json', messages) }}
{%- endmacro %}
