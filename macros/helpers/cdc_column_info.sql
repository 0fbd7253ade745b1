{#- Per column, what a value of it is read by: the vendor type text `full` and its base
    name `base` (cdc_base_type), from `types` (column -> type text). The `info` that the
    Canal family and DRS Avro pair with each image (cdc_zip_image). -#}
{% macro cdc_column_info(types) -%}
    transform_values({{ types }}, (k, t) -> named_struct('base', {{ cdc_base_type('t') }}, 'full', t))
{%- endmacro %}
