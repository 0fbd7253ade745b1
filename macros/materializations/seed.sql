{#- The seed materialization on Spark: dbt's own (drop, create, insert every row), except
    that a seed whose CSV and column types are those of its last load is left as it is.
    `dbt build` and `cdc build` load seeds every run; reloading unchanged ones cost about
    2.5 s a build. The table keeps what it was loaded from in the table property
    `cdc.seed_fingerprint` (the file's sha256 and the column types); `--full-refresh`
    always reloads. A file dbt fingerprints by path only (over 1 MiB) always reloads. -#}
{% materialization seed, adapter='spark' %}
    {%- set fingerprint = _cdc_seed_fingerprint(model) -%}
    {%- set old_relation = adapter.get_relation(database=database, schema=schema, identifier=model['alias']) -%}
    {%- if fingerprint is not none and old_relation is not none and old_relation.is_table
        and not should_full_refresh() and _cdc_loaded_fingerprint(old_relation) == fingerprint -%}
        {%- set agate_table = load_agate_table() -%}
        {%- do store_result('agate_table', response='OK', agate_table=agate_table) -%}
        {%- set rows = agate_table.rows | length -%}
        {%- call noop_statement('main', 'UNCHANGED ' ~ rows, 'UNCHANGED', rows) -%}
            -- {{ this }} holds this file as loaded before (cdc.seed_fingerprint {{ fingerprint }})
        {%- endcall -%}
        {{ return({'relations': [this.incorporate(type='table')]}) }}
    {%- endif -%}
    {%- set result = materialization_seed_default() -%}
    {%- if fingerprint is not none -%}
        {%- do run_query('alter table ' ~ this ~ " set tblproperties ('cdc.seed_fingerprint' = "
            ~ cdc_sql_string(fingerprint) ~ ')') -%}
    {%- endif -%}
    {{ return(result) }}
{% endmaterialization %}

{#- What a seed loads from: its file's sha256 and its column types; none when dbt knows
    the file by path only. -#}
{% macro _cdc_seed_fingerprint(model) %}
    {%- if model.checksum.name != 'sha256' -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(local_md5(model.checksum.checksum ~ tojson(model.config.get('column_types', {}), sort_keys=true))) }}
{% endmacro %}

{#- The fingerprint `relation` was last loaded from, or none. -#}
{% macro _cdc_loaded_fingerprint(relation) %}
    {%- for row in run_query('show tblproperties ' ~ relation).rows -%}
        {%- if row[0] == 'cdc.seed_fingerprint' -%}
            {{ return(row[1]) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(none) }}
{% endmacro %}
