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


{#- A SQL map from each column a table declares to `value_sql(sql_type, dialect)` (a macro
    giving SQL text), looked up for `table_id` (a SQL expression): NULL (of `map_type`)
    when the table declares no columns. -#}
{% macro cdc_declared_lookup(table_id, value_sql, map_type) -%}
    {%- set tables = [] -%}
    {%- for table, spec in cdc_declared_tables().items() if spec.columns -%}
        {%- do tables.append((table, spec)) -%}
    {%- endfor -%}
    {%- if not tables -%}
    cast(null as {{ map_type }})
    {%- else -%}
    try_element_at(map(
        {%- for table, spec in tables %}
        {{ cdc_sql_string(table) }}, map(
            {%- for column, sql_type in spec.columns.items() %}
            {{ cdc_sql_string(column) }}, {{ value_sql(sql_type, spec.dialect) }}{{ ',' if not loop.last }}
            {%- endfor %}
        ){{ ',' if not loop.last }}
        {%- endfor %}
    ), {{ table_id }})
    {%- endif -%}
{%- endmacro %}


{#- The column types a table declares, lower-case, as a map<string,string> SQL expression
    for `table_id`; NULL when the table declares none. -#}
{% macro cdc_declared_columns(table_id) -%}
    {{ cdc_declared_lookup(table_id, cdc_declared_type_text, 'map<string, string>') }}
{%- endmacro %}


{#- A declared type as a SQL string literal, lower-case (`dialect` is not needed). -#}
{% macro cdc_declared_type_text(sql_type, dialect) -%}
    {{ cdc_sql_string(sql_type | string | lower) }}
{%- endmacro %}
