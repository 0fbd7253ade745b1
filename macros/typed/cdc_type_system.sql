{#- The type system a change's column_types belong to: the Connect types of Debezium and
    CDL, the binlog type numbers of DTS Avro, the JSON value types of DataHub Tuple, the
    BSON types of DRS for DDS, DataWorks' own names, else the SQL types of the source
    database's dialect (ddl_dialect: mysql, postgres, oracle, tsql). -#}
{% macro cdc_type_system(vendor_format, dialect) -%}
    case
        when {{ vendor_format }} in ('debezium_json', 'cdl_json') then 'connect'
        when {{ vendor_format }} = 'dts_avro' then 'dts'
        when {{ vendor_format }} = 'datahub_tuple' then 'datahub'
        when {{ vendor_format }} = 'drs_mongo_json' then 'bson'
        when {{ vendor_format }} = 'dataworks_json' then 'dataworks'
        else coalesce({{ dialect }}, 'mysql')
    end
{%- endmacro %}
