{#- drs_json: Huawei DRS JSON, MySQL / GaussDB(for MySQL) (`mysqlType`) and Oracle /
    PostgreSQL / GaussDB / SQL Server (`columnType`, `dbType`, `schema`, `opType`).
    `old` = full before image, DELETE rows in `old`; INIT / INIT_DDL = full load;
    binary as Java byte-array text, bytea as hex; TIMESTAMP as epoch seconds.millis. -#}
{% macro decode_drs_json(messages) -%}
    {{ decode_canal_family('drs_json', messages) }}
{%- endmacro %}
