{#- The SQL dialect (sqlglot name) of a source database the vendor names in free text
    (Canal-family `dbType`/`sqlType` hints, DataWorks `dbType`): oracle, tsql, postgres
    (PostgreSQL, PolarDB for PostgreSQL, GaussDB's PostgreSQL-compatible editions), else
    mysql. -#}
{% macro cdc_db_type_dialect(db_type) -%}
    case
        when lower({{ db_type }}) like '%oracle%' then 'oracle'
        when lower({{ db_type }}) like '%sql%server%' or lower({{ db_type }}) like '%sqlserver%' then 'tsql'
        when lower({{ db_type }}) like '%postgres%' or lower({{ db_type }}) like '%polardb%pg%'
            or (lower({{ db_type }}) like '%gauss%' and lower({{ db_type }}) not like '%mysql%') then 'postgres'
        else 'mysql'
    end
{%- endmacro %}
