{#- Override of dbt's relation a generic data test reads (its `where` config applied):
    with CDC_CHECK_SINCE_BATCH set (`cdc build`), also only the rows of the landing
    batches built since then (macro cdc_checked_batches), by the model's
    built_through_batch_id (gold and the schema history: rows written by this build) or
    landing_batch_id, as its YAML documents them. Models with neither column are checked
    whole. -#}
{% macro spark__get_where_subquery(relation) -%}
    {%- set conditions = [] -%}
    {%- if config.get('where') -%}
        {%- do conditions.append('(' ~ config.get('where') ~ ')') -%}
    {%- endif -%}
    {%- if execute and env_var('CDC_CHECK_SINCE_BATCH', '') -%}
        {#- the columns the model's YAML documents (every column, checked by the docs
            tests): no query per test -#}
        {%- set names = [] -%}
        {%- for node in graph.nodes.values() if node.resource_type in ['model', 'seed']
                and node.schema == relation.schema and (node.alias or node.name) == relation.identifier -%}
            {%- do names.extend(node.columns.keys()) -%}
        {%- endfor -%}
        {%- for column in ['built_through_batch_id', 'landing_batch_id'] if column in names -%}
            {%- if loop.first -%}
                {%- do conditions.append(cdc_checked_batches(column)) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {%- if conditions -%}
        {{- return('(select * from ' ~ relation ~ ' where ' ~ conditions | join(' and ') ~ ') dbt_subquery') -}}
    {%- endif -%}
    {{- return(relation) -}}
{%- endmacro %}
