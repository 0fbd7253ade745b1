{#- The select list that ends every decoder: each column of the decoded-row contract
    (cdc_decoded_contract), in order. The message columns and record_kind (set by
    cdc_message_columns) and the columns named in `columns` come from the decoder's last
    CTE as it computed them; every other column is a NULL of its contract type. Naming a
    column the contract does not have is a compile error. -#}
{% macro cdc_decoded_row(columns) -%}
    {%- set contract = cdc_decoded_contract() -%}
    {%- set names = contract | map(attribute='name') | list -%}
    {%- set unknown = columns | reject('in', names) | list -%}
    {%- if unknown -%}
        {{- exceptions.raise_compiler_error(
            'cdc_decoded_row: ' ~ unknown | join(', ') ~ ' not in the decoded-row contract '
            ~ '(macros/helpers/cdc_decoded_contract.sql): add it there or rename it'
        ) -}}
    {%- endif -%}
    {%- set message_columns = names[:names.index('record_kind') + 1] -%}
    {%- for column in contract %}
        {% if column.name in message_columns or column.name in columns -%}
            {{ column.name }}
        {%- else -%}
            cast(null as {{ column.type }}) as {{ column.name }}
        {%- endif %}{{ ',' if not loop.last }}
    {%- endfor %}
{%- endmacro %}
