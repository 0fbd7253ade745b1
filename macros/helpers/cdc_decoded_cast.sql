{#- Every column of the decoded-row contract (cdc_decoded_contract) cast to its contract
    type, in order: how int_cdc__decoded reads each decoder, so that a decoder whose
    output type drifts changes no stored type (tests/test_decoder_contract.py catches the
    drift itself). -#}
{% macro cdc_decoded_cast() -%}
    {%- for column in cdc_decoded_contract() %}
        cast({{ column.name }} as {{ column.type }}) as {{ column.name }}{{ ',' if not loop.last }}
    {%- endfor %}
{%- endmacro %}
