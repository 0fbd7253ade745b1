{#- The rows a data test checks, as a condition on `column` (a landing batch id): with the
    environment variable CDC_CHECK_SINCE_BATCH (which `cdc build` sets to the last landing
    batch its previous successful build checked), the later batches only; otherwise
    every row (`true`). Read when the test runs, never while dbt parses, so a new value
    costs no parse. -#}
{% macro cdc_checked_batches(column) -%}
    {%- set since = env_var('CDC_CHECK_SINCE_BATCH', '') if execute else '' -%}
    {%- if since and not since.isdigit() -%}
        {{- exceptions.raise_compiler_error(
            'CDC_CHECK_SINCE_BATCH must be a landing batch id (a whole number), not ' ~ since) -}}
    {%- endif -%}
    {{- column ~ ' > ' ~ since if since else 'true' -}}
{%- endmacro %}
