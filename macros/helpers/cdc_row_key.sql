{#- Canonical text of a row's identity: the JSON array of its primary-key values in
    key order (["104"], ["1","2"]); for a table without a key, the whole row as a JSON
    object with its columns sorted by name. -#}
{% macro cdc_row_key(pk_columns, image) -%}
    case
        when {{ image }} is null then null
        when size({{ pk_columns }}) > 0 then to_json(transform({{ pk_columns }}, key_column -> {{ image }}[key_column]))
        else to_json(map_from_entries(array_sort(map_entries({{ image }}))))
    end
{%- endmacro %}
