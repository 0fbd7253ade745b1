{#- The contract names its schemas bronze, silver and gold: use a model's custom schema
    as it is, not prefixed with the target schema as dbt does by default. -#}
{% macro generate_schema_name(custom_schema_name, node) -%}
    {{- (custom_schema_name or target.schema) | trim -}}
{%- endmacro %}
