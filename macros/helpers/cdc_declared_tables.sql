{#- The tables the project declares, from var `cdc_tables` (DESIGN §4.3 "Declared
    schemas"): per table id (as silver `table_id`, macro cdc_table_id) its key
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
    table in both takes cdc_tables. Returns {table id: {primary_key, dialect, columns}}; a
    table id written in one case is lower-cased, as cdc_table_id folds such names. -#}
{% macro cdc_declared_tables() -%}
    {%- set declared = {} -%}
    {%- for table, columns in (var('cdc_primary_keys', {}) or {}).items() -%}
        {%- set spec = {'primary_key': columns, 'dialect': 'mysql', 'columns': {}} -%}
        {%- do declared.update({_cdc_declared_id(table): spec}) -%}
    {%- endfor -%}
    {%- for table, spec in (var('cdc_tables', {}) or {}).items() -%}
        {%- set spec = spec or {} -%}
        {%- do declared.update({_cdc_declared_id(table): {
            'primary_key': spec.get('primary_key') or [],
            'dialect': (spec.get('dialect') or 'mysql') | lower,
            'columns': spec.get('columns') or {},
        }}) -%}
    {%- endfor -%}
    {{- return(declared) -}}
{%- endmacro %}

{#- A declared table id as silver writes it: lower-case when written in one case. -#}
{% macro _cdc_declared_id(table) -%}
    {{- return(table | lower if table == table | upper else table) -}}
{%- endmacro %}
