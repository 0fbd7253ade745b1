{#- A JSON document `x` without its insignificant whitespace, every scalar and key as
    written (966.0 stays 966.0, 1e3 stays 1e3, keys keep their order): DESIGN §4.3. Text
    that is not JSON stays as it is. Parsing to VARIANT and back would normalise numbers
    and sort keys, and a regular expression that skips string literals recurses on long
    values (Java's engine), so the text is cut at its quotes instead: with escaped
    backslashes and quotes set aside first, the pieces at even positions are outside
    strings and lose their whitespace. char(1) and char(2) cannot occur in valid JSON
    text (control characters must be escaped there). -#}
{% macro cdc_compact_json(x) -%}
    case
        when try_parse_json({{ x }}) is null then {{ x }}
        else replace(replace(array_join(transform(
            split(replace(replace({{ x }}, '\\\\', char(1)), '\\"', char(2)), '"'),
            (piece, i) -> case when i % 2 = 0 then regexp_replace(piece, '[ \\t\\r\\n]+', '') else piece end
        ), '"'), char(2), '\\"'), char(1), '\\\\')
    end
{%- endmacro %}
