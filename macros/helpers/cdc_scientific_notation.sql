{#- A regular expression (SQL literal) that matches the whole of a number's text in
    scientific notation ("1.2510357E7", "-5E-3", "1.e5"): the text cdc_plain_number rewrites;
    with `lines`, a text with such a number as any of its lines. -#}
{% macro cdc_scientific_notation(lines=false) -%}
    '{{ '(?m)' if lines }}^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)[eE][+-]?[0-9]+$'
{%- endmacro %}
