{#-
    decode_drs_avro: Huawei DRS Avro messages to silver rows. The format, its rows, keys, order
    and values: docs block fmt_drs_avro (models/silver/_silver__docs.md).

    The Python UDF cdc_decode_drs_avro (udfs/drs_avro.py) reads each value with the schema
    files of cdc_drs_avro_schema_paths (below) and returns JSON text, parsed here once:
    `fields` (column names, and types when the schema has them) positional with `before` /
    `after` (`beforeImages` / `afterImages`, canonical text per value).
-#}
{% macro decode_drs_avro(messages) -%}
with

messages as (
    select *, {{ cdc_message_text() }} as value_text from {{ messages }}
),

decoded as (
    -- the UDF runs once per message (message_value: the base64 text of the bytes)
    select
        *,
        cdc_decode_drs_avro(message_value, {{ cdc_sql_string(cdc_drs_avro_schema_paths()) }}) as decoded_json
    from messages
),

parsed as (
    select
        *,
        try_parse_json(decoded_json) as v
    from decoded
),

envelope as (
    select
        *,
        try_variant_get(v, '$.error', 'string') as decode_error,
        try_variant_get(v, '$.operation', 'string') as vendor_op,
        upper(trim(try_variant_get(v, '$.operation', 'string'))) as op_uc,
        try_variant_get(v, '$.tableName', 'string') as table_name,
        try_variant_get(v, '$.seqno', 'string') as seqno,
        try_variant_get(v, '$.eventMs', 'bigint') as event_ms,
        try_variant_get(v, '$.columnCount', 'string') as column_count,
        try_variant_get(v, '$.fields', 'array<string>') as field_names,
        try_variant_get(v, '$.types', 'array<string>') as field_types,
        try_variant_get(v, '$.before', 'array<string>') as before_values,
        try_variant_get(v, '$.after', 'array<string>') as after_values,
        try_variant_get(v, '$.ddl', 'string') as ddl_statement,
        -- "SCHEMA"."TABLE" (Oracle quoted identifiers; a quoted part may hold a dot) or db.table
        transform(
            regexp_extract_all(coalesce(try_variant_get(v, '$.tableName', 'string'), ''), '("[^"]*"|[^."]+)', 1),
            part -> replace(part, '"', '')
        ) as name_parts
    from parsed
),

classified as (
    select
        *,
        case
            when op_uc in ('INSERT', 'UPDATE', 'DELETE', 'INIT') then 'change'
            when op_uc = 'TRUNCATE' then 'truncate'
            when op_uc in ('DDL', 'INIT_DDL') then
                case when ddl_statement rlike '(?is)^\\s*truncate\\s' then 'truncate' else 'ddl' end
            when op_uc is not null then 'marker'
        end as kind,
        case op_uc when 'INIT' then 'SNAPSHOT' else op_uc end as change_op,
        {{ cdc_truncated_table('ddl_statement') }} as truncated_name,
        size(name_parts) as name_size,
        coalesce(size(field_names), 0) as field_count
    from envelope
),

named as (
    select
        *,
        case when name_size >= 3 then array_join(slice(name_parts, 1, name_size - 2), '.') end as db_name,
        case when name_size >= 2 then element_at(name_parts, -2) end as schema_name,
        case when name_size >= 1 then element_at(name_parts, -1) end as table_part
    from classified
),

keyed as (
    select
        *,
        {{ cdc_configured_primary_key(cdc_table_id('db_name', 'schema_name', 'table_part')) }} as pk_names
    from named
),

checked as (
    select
        *,
        case
            {{ cdc_empty_value_reject() }}
            when decode_error is not null then decode_error
            when v is null then 'the DRS Avro decoder returned no JSON'
            when vendor_op is null then 'no "operation" value'
            when kind in ('change', 'truncate') and coalesce(trim(table_part), '') = ''
                and (kind = 'change' or truncated_name = '') then '"tableName" is missing or empty'
            when kind = 'change' and field_count = 0 then vendor_op || ' message without "fields"'
            when kind = 'change' and exists(field_names, f -> f is null or trim(f) = '') then
                '"fields" has a column without a name'
            when kind = 'change' and size(array_distinct(field_names)) != field_count then
                '"fields" names a column twice: ' || array_join(field_names, ', ')
            when kind = 'change' and change_op in ('INSERT', 'SNAPSHOT', 'UPDATE') and after_values is null then
                vendor_op || ' without "afterImages"'
            when kind = 'change' and change_op = 'DELETE' and before_values is null then
                'DELETE without "beforeImages"'
            when kind = 'change' and before_values is not null and size(before_values) != field_count then
                '"beforeImages" has ' || size(before_values) || ' values for ' || field_count || ' "fields"'
            when kind = 'change' and after_values is not null and size(after_values) != field_count then
                '"afterImages" has ' || size(after_values) || ' values for ' || field_count || ' "fields"'
            when kind = 'change' and column_count rlike '^[0-9]+$' and cast(column_count as int) != field_count then
                '"columnCount" is ' || column_count || ' but "fields" has ' || field_count || ' columns'
            when kind = 'change' and exists(pk_names, c -> not array_contains(field_names, c)) then
                'the configured primary key column(s) ' || array_join(pk_names, ', ')
                || ' (var cdc_primary_keys) are not all among the "fields"'
            when kind = 'ddl' and coalesce(trim(ddl_statement), '') = '' then
                vendor_op || ' message without a statement (no "sql"/"ddl" field, no text in "afterImages")'
            else {{ cdc_epoch_reject('event_ms', 'ms', 'eventMs') }}
        end as reject_reason
    from keyed
),

imaged as (
    select
        *,
        case when reject_reason is not null then 'reject' when kind = 'truncate' then 'change' else kind end
            as record_kind,
        -- zipped by position; the checks above make the sizes match and the names unique
        case
            when reject_reason is null and kind = 'change' and change_op in ('UPDATE', 'DELETE')
                and size(before_values) = field_count then map_from_arrays(field_names, before_values)
        end as before_image,
        case
            when reject_reason is null and kind = 'change' and change_op != 'DELETE'
                and size(after_values) = field_count then map_from_arrays(field_names, after_values)
        end as after_image,
        -- only for a message that passed the checks: a column named twice must stay a reject
        case
            when reject_reason is null and kind = 'change' and size(field_types) = field_count
                then map_from_arrays(field_names, field_types)
        end as type_map
    from checked
),

described as (
    select
        *,
        -- what the value of each column is read by (cdc_zip_image)
        {{ cdc_column_info('type_map') }} as column_info
    from imaged
),

canonical as (
    -- values as DRS JSON renders them, read the same way when the fields carry their
    -- types (binary as Java byte-array text, TIMESTAMP as epoch seconds, doubles in Java
    -- notation): see canal_family_value
    select
        * except (before_image, after_image, column_info),
        -- both images through one lambda: Spark analyses, optimises and compiles each copy
        -- of the value expression
        case when type_map is null then array(before_image, after_image) else transform(
            array(before_image, after_image), img -> {{ _drs_avro_values('img', 'column_info') }}
        ) end as canonical_images
    from described
),

decoder_rows as (
    select
        {{ cdc_message_columns('drs_avro') }},
        0 as row_index,
        {{ cdc_truncate_target('db', 'db_name', "coalesce(trim(table_part), '') = ''") }} as source_db,
        case when not (kind = 'truncate' and coalesce(trim(table_part), '') = '') then schema_name end
            as source_schema,
        {{ cdc_truncate_target('table', 'table_part', "coalesce(trim(table_part), '') = ''") }} as source_table,
        case when record_kind = 'change' then case when kind = 'truncate' then 'TRUNCATE' else change_op end end
            as op,
        vendor_op,
        case when record_kind = 'change' then pk_names end as pk_columns,
        canonical_images[0] as before,
        canonical_images[1] as after,
        false as before_is_partial,
        false as after_is_partial,
        case when record_kind = 'change' and kind = 'change' then type_map end as column_types,
        case when table_name like '%"%' then 'oracle' else 'mysql' end as type_system,
        {{ cdc_epoch_timestamp('event_ms') }} as event_ts,
        -- the Kafka record time: DRS Avro carries no time of its own for the write
        kafka_ts as capture_ts,
        concat(
            case when seqno rlike '^[0-9]{1,38}$' then array(cast(seqno as decimal(38, 0))) else array() end,
            case when event_ms is not null then array(cast(event_ms as decimal(38, 0))) else array() end
        ) as sort_key,
        case when record_kind in ('ddl', 'change') and kind != 'change' then ddl_statement end as ddl_text,
        -- no source engine is named: quoted identifiers mean Oracle (the only DRS Avro
        -- consumer Huawei documents is MRS CDL's drs-oracle-avro)
        case when table_name like '%"%' then 'oracle' else 'mysql' end as ddl_dialect,
        case when record_kind = 'marker' then 'OTHER' end as marker_kind,
        case when record_kind = 'marker' then concat_ws(' ', vendor_op, table_name) end as detail,
        case when record_kind = 'reject' then 'decode' end as reject_stage,
        reject_reason
    from canonical
)

select {{ cdc_decoded_row(left_out=['tx_id', 'pair_key', 'ddl_meta', 'document', 'update_operators']) }}
from decoder_rows
{%- endmacro %}


{#- The JSON array of writer schema files the UDF reads, from var `cdc_drs_avro_schemas`
    (a list of .avsc paths, or one path; default: the RECONSTRUCTED schema shipped in the
    package, `package:Record.reconstructed.avsc`). `package:NAME` names a file in
    udfs/schemas/drs_avro/; a relative path is made absolute against the dbt project
    directory here, at compile time (the UDF runs in Spark's Python workers, whose current
    directory is not the project's). -#}
{% macro cdc_drs_avro_schema_paths() -%}
    {%- set configured = var('cdc_drs_avro_schemas', none) -%}
    {%- if configured is none or configured == '' or configured == [] -%}
        {%- set configured = ['package:Record.reconstructed.avsc'] -%}
    {%- elif configured is string -%}
        {%- set configured = [configured] -%}
    {%- endif -%}
    {%- set project_dir = (invocation_args_dict or {}).get('project_dir') or env_var('DBT_PROJECT_DIR', '') -%}
    {%- set paths = [] -%}
    {%- for path in configured -%}
        {%- set path = path | string | trim -%}
        {%- if path.startswith('package:') or path.startswith('/') or path.startswith('~')
            or modules.re.match('^[A-Za-z]:[\\\\/]', path) or not project_dir -%}
            {%- do paths.append(path) -%}
        {%- else -%}
            {%- do paths.append((project_dir | string).rstrip('/') ~ '/' ~ path) -%}
        {%- endif -%}
    {%- endfor -%}
    {{- return(tojson(paths)) -}}
{%- endmacro %}


{#- An image of DRS Avro canonical: each value read by its field's type as DRS JSON's are
    (canal_family_value). `columns`: each field's type, `base` (cdc_base_type) and `full`. -#}
{% macro _drs_avro_values(image, columns) -%}
    {%- set value -%}
        case
            -- binary as DRS JSON writes it (a Java byte-array literal, bytea hex), else as
            -- given (a schema whose values are canonical text already)
            when zipped.col_info.base in (
                'binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob', 'bytea', 'raw'
            ) and not zipped.x rlike '^\\[[-0-9, ]*\\]$'
                and not (zipped.col_info.base = 'bytea' and zipped.x rlike '^\\\\x[0-9a-fA-F]*$') then zipped.x
            else {{ canal_family_value('zipped.x', 'zipped.col_info.base', 'zipped.col_info.full', 'drs_json') }}
        end
    {%- endset -%}
    {{ cdc_zip_image(image, columns, value) }}
{%- endmacro %}
