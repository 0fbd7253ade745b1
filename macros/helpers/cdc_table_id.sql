{#- Normalised table id: lower-case, dot-joined, blank parts dropped, names trimmed;
    NULL when no part is left. -#}
{% macro cdc_table_id(db, schema, table) -%}
    nullif(lower(concat_ws('.', filter(
        array(trim({{ db }}), trim({{ schema }}), trim({{ table }})),
        part -> part is not null and part != ''
    ))), '')
{%- endmacro %}
