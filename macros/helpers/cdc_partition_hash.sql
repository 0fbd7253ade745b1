{#- The partition value of a source name (table_id, topic): 16 hex digits of its SHA-256.
    Source names can be anything (NUL, '/', 300 characters, names that differ only in
    case), and a partition value is a folder name: the name itself stays a column. -#}
{% macro cdc_partition_hash(name) -%}
    substr(sha2(cast({{ name }} as string), 256), 1, 16)
{%- endmacro %}
