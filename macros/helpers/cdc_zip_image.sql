{#- `image` (a map of column -> text) with each value replaced by `value`, an expression of
    `zipped.x` (the value), `zipped.col_info` (what the map `info`, keyed by column, holds
    for that column: NULL when it holds nothing; a NULL map counts as empty) and `k` (the
    column). The keys and their order stay the image's.

    One pass over both maps (map_zip_with), not a lookup per value (`info[k]` in a
    lambda): a lambda is evaluated without code generation, where a map lookup reads the
    keys one by one, and in Spark 4.2 every read of an element of a row's map constructs
    the task's SQL configuration (TypeOps.apply asks SQLConf.get): a lookup per value made
    decoding a table of 40 columns quadratic in them and cost half the decoders' time. The
    pairing sits in the map argument, so that `value` (a decoder's large CASE) is nested
    no deeper than in a plain transform_values. -#}
{% macro cdc_zip_image(image, info, value) -%}
    transform_values(
        map_filter(
            map_zip_with(
                transform_values({{ image }}, (k, x) -> named_struct('x', x)),
                coalesce({{ info }}, map()),
                (k, image_value, col_info) -> case
                    when image_value is not null then named_struct('x', image_value.x, 'col_info', col_info)
                end
            ),
            (k, zipped) -> zipped is not null
        ),
        (k, zipped) -> {{ value }}
    )
{%- endmacro %}
