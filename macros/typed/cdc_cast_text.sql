{#- The canonical text of a value (DESIGN §4.3) as `spark_type`: NULL when it does not
    fit. Binary values are base64 text; everything else is Spark's own cast. -#}
{% macro cdc_cast_text(expr, spark_type) -%}
    {%- if spark_type == 'binary' -%}
        try_to_binary({{ expr }}, 'base64')
    {%- elif spark_type == 'string' -%}
        {{ expr }}
    {%- else -%}
        try_cast({{ expr }} as {{ spark_type }})
    {%- endif -%}
{%- endmacro %}
