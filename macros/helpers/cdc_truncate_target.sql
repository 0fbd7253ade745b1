{#- A TRUNCATE's database or table (`part`: 'db' or 'table') in a decoder: `given` (what
    the message names), or, for a row of `kind` 'truncate' where `from_statement` holds
    (the message leaves it out), that part of the table its statement names
    (`truncated_name`: macro cdc_truncated_table); a database only from a qualified name. -#}
{% macro cdc_truncate_target(part, given, from_statement, truncated_name='truncated_name') -%}
    {%- if part not in ('db', 'table') -%}
        {{- exceptions.raise_compiler_error("cdc_truncate_target: part is 'db' or 'table', not " ~ part) -}}
    {%- endif -%}
    case
        when kind = 'truncate' and {{ from_statement }}
            {%- if part == 'db' %} and {{ truncated_name }} like '%.%'{% endif %}
            then element_at(split({{ truncated_name }}, '[.]'), {{ -2 if part == 'db' else -1 }})
        else {{ given }}
    end
{%- endmacro %}
