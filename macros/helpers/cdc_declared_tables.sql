{#- The tables the project declares, from var `cdc_tables` (DESIGN §4.3 "Declared
    schemas"): per table id (lower-case, dot-joined, as silver `table_id`) its key
    columns and its column types, for formats whose messages name no key (DataHub Tuple,
    DRS Avro, Shareplex Json of a source without ROWIDs) or carry no types (Debezium
    without its schema envelope):

        vars:
          cdc_tables:
            shop.orders:
              primary_key: [order_id]
              dialect: mysql          # the SQL dialect of the types (mysql, postgres)
              columns: {order_id: bigint, created: datetime(3), amount: decimal(20,4)}

    The older var `cdc_primary_keys` (table id -> key columns) still declares keys; a
    table in both takes cdc_tables. Returns {table id: {primary_key, dialect, columns}}. -#}
{% macro cdc_declared_tables() -%}
    {%- set declared = {} -%}
    {%- for table, columns in (var('cdc_primary_keys', {}) or {}).items() -%}
        {%- do declared.update({table | lower: {'primary_key': columns, 'dialect': 'mysql', 'columns': {}}}) -%}
    {%- endfor -%}
    {%- for table, spec in (var('cdc_tables', {}) or {}).items() -%}
        {%- set spec = spec or {} -%}
        {%- do declared.update({table | lower: {
            'primary_key': spec.get('primary_key') or [],
            'dialect': (spec.get('dialect') or 'mysql') | lower,
            'columns': spec.get('columns') or {},
        }}) -%}
    {%- endfor -%}
    {{- return(declared) -}}
{%- endmacro %}
