{#- The first `when` branches of a JSON decoder's reject reason: the value is empty
    (cdc_empty_value_reject), its `text` is not UTF-8 text (bytes landed as base64), is not
    JSON (`v`, its parse, is NULL), or is JSON but not an object. -#}
{% macro cdc_json_object_rejects(text, v='v') -%}
            {{ cdc_empty_value_reject() }}
            when {{ text }} is null then 'value is not UTF-8 text'
            when {{ v }} is null then 'value is not valid JSON'
            when not startswith(ltrim({{ text }}), '{') then
                'value is a JSON ' || case when startswith(ltrim({{ text }}), '[') then 'array' else 'scalar' end
                || ', not an object'
{%- endmacro %}
