{#- Canonical text of a row's identity: the JSON array of its primary-key values in
    key order (["104"], ["1","2"]); for a table without a key, the row itself as a JSON
    object of its non-NULL columns sorted by name, so that a column absent from an image
    and a column that is NULL there are the same (a row inserted before `ADD COLUMN x` is
    the row a later before image with `x: null` names: DESIGN §4.3). Columns the table no
    longer has are left out in gold (cdc_row_history). -#}
{% macro cdc_row_key(pk_columns, image) -%}
    case
        when {{ image }} is null then null
        when size({{ pk_columns }}) > 0 then to_json(transform({{ pk_columns }}, key_column -> {{ image }}[key_column]))
        else to_json(map_from_entries(array_sort(filter(map_entries({{ image }}), e -> e.value is not null))))
    end
{%- endmacro %}
