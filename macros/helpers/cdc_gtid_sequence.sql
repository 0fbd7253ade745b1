{#- The sequence number of a GTID, compared as a number: MySQL `uuid:N` (also a GTID set
    `uuid:1-N`: its last number) and MariaDB `domain-server-seq` give N; NULL when the text
    ends in no number. Numbers of different servers or domains do not compare: the order
    holds within one source server's stream, which is what a change log is. -#}
{% macro cdc_gtid_sequence(gtid) -%}
    try_cast(nullif(regexp_extract({{ gtid }}, '([0-9]{1,38})[^0-9]*$', 1), '') as decimal(38, 0))
{%- endmacro %}
