{#- A timestamp (an instant, session time zone UTC) as ISO-8601 text in UTC:
    2021-06-25T09:51:53.201Z; the fraction keeps its significant digits only. -#}
{% macro cdc_iso_instant(ts) -%}
    concat(regexp_replace(date_format({{ ts }}, "yyyy-MM-dd'T'HH:mm:ss.SSSSSS"), '\\.?0+$', ''), 'Z')
{%- endmacro %}
