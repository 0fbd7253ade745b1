{#- The select list that ends every decoder: each column of the decoded-row contract
    (cdc_decoded_contract), in order. A column named in `left_out` (one the format does
    not have) is a NULL of its contract type; every other column comes from the
    decoder's last CTE, so a column the decoder forgot to compute is an error of Spark's,
    never a silent NULL. Naming a column the contract does not have, or a message column
    (set by cdc_message_columns), is a compile error. -#}
{% macro cdc_decoded_row(left_out) -%}
    {%- set contract = cdc_decoded_contract() -%}
    {%- set names = contract | map(attribute='name') | list -%}
    {%- set message_columns = names[:names.index('record_kind') + 1] -%}
    {%- set unknown = left_out | reject('in', names) | list -%}
    {%- if unknown -%}
        {{- exceptions.raise_compiler_error(
            'cdc_decoded_row: ' ~ unknown | join(', ') ~ ' not in the decoded-row contract '
            ~ '(macros/helpers/cdc_decoded_contract.sql): add it there or rename it'
        ) -}}
    {%- endif -%}
    {%- set required = left_out | select('in', message_columns) | list -%}
    {%- if required -%}
        {{- exceptions.raise_compiler_error(
            'cdc_decoded_row: every decoder sets ' ~ required | join(', ') ~ ' (cdc_message_columns)'
        ) -}}
    {%- endif -%}
    {%- for column in contract %}
        {% if column.name in left_out -%}
            cast(null as {{ column.type }}) as {{ column.name }}
        {%- else -%}
            {{ column.name }}
        {%- endif %}{{ ',' if not loop.last }}
    {%- endfor %}
{%- endmacro %}
