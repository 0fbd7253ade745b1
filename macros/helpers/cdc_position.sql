{#- The order of a change among the changes of its table: the format's own sequence
    (`sort_key`, see each decoder), then Kafka partition and offset, then the row's place
    in its message. Structs compare field by field. -#}
{% macro cdc_position(relation_alias='', sub_index='0') -%}
    {%- set p = relation_alias ~ '.' if relation_alias else '' -%}
    named_struct(
        'sort_key', {{ p }}sort_key,
        'kafka_partition', {{ p }}kafka_partition,
        'kafka_offset', {{ p }}kafka_offset,
        'row_index', {{ p }}row_index,
        'sub_index', {{ sub_index }}
    )
{%- endmacro %}
