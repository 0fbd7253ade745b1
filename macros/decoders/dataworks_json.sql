{#-
    decode_dataworks_json: DataWorks "sync whole database to Kafka" JSON (also DataHub Blob
    payloads) to silver rows. The format, its rows, keys, order and values: docs block
    fmt_dataworks_json (models/silver/_silver__docs.md).

    A Blob payload (base64 of the JSON) is read through `value_text`. UPDATE_BEFOR and an
    UPDATE_AFTER without a before image are record_kind 'half' with pair_key = sequenceId:
    int_cdc__update_pairs pairs the halves.
-#}
{% macro decode_dataworks_json(messages) -%}
{%- set ddl_ops = "'CREATE', 'ALTER', 'ERASE', 'RENAME', 'CINDEX', 'DINDEX', 'QUERY'" -%}
with

messages as (
    select *, {{ cdc_message_text() }} as value_text from {{ messages }}
),

-- The ddlMeta UDF runs in Python for every row it is given: a cheap look at the raw text
-- sets the few messages with a ddlMeta apart, and only their DDL rows reach the UDF.
-- Every message is parsed once (the small ddlMeta share twice).
plain as (
    select *, try_parse_json(value_text) as v, cast(null as string) as ddl_meta_json
    from messages
    where not coalesce(value_text like '%"ddlMeta"%', false)
),

with_meta as (
    select *, try_parse_json(value_text) as v
    from messages
    where value_text like '%"ddlMeta"%'
),

meta_ddl as (
    select *, cdc_decode_ddlmeta(try_variant_get(v, '$.payload.ddl.ddlMeta', 'string')) as ddl_meta_json
    from with_meta
    where try_variant_get(v, '$.payload.op', 'string') in ({{ ddl_ops }})
        and {{ cdc_has_value('v', '$.payload.ddl.ddlMeta') }}
),

meta_other as (
    select *, cast(null as string) as ddl_meta_json
    from with_meta
    where not coalesce(
        try_variant_get(v, '$.payload.op', 'string') in ({{ ddl_ops }})
            and {{ cdc_has_value('v', '$.payload.ddl.ddlMeta') }},
        false
    )
),

parsed as (
    select * from plain
    union all
    select * from meta_ddl
    union all
    select * from meta_other
),

envelope as (
    select
        *,
        try_variant_get(v, '$.payload.op', 'string') as vendor_op,
        try_variant_get(v, '$.payload.sequenceId', 'string') as sequence_text,
        try_variant_get(v, '$.payload.scn', 'string') as scn_text,
        try_variant_get(v, '$.payload.timestamp.eventTime', 'bigint') as event_ms,
        try_variant_get(v, '$.payload.timestamp.systemTime', 'bigint') as system_ms,
        try_variant_get(v, '$.schema.source.dbType', 'string') as db_type,
        try_variant_get(v, '$.schema.source.dbName', 'string') as db_name,
        try_variant_get(v, '$.schema.source.schemaName', 'string') as schema_name,
        try_variant_get(v, '$.schema.source.tableName', 'string') as table_name,
        try_variant_get(v, '$.schema.primaryKey', 'array<string>') as primary_key,
        {{ cdc_has_value('v', '$.schema.primaryKey') }} as has_primary_key,
        try_variant_get(v, '$.schema.dataColumn', 'array<struct<name: string, type: string>>') as data_columns,
        {{ cdc_has_value('v', '$.schema.dataColumn') }} as has_data_columns,
        try_variant_get(v, '$.payload.before.dataColumn', 'map<string,variant>') as before_values,
        try_variant_get(v, '$.payload.after.dataColumn', 'map<string,variant>') as after_values,
        {{ cdc_has_value('v', '$.payload.before') }} as has_before,
        {{ cdc_has_value('v', '$.payload.after') }} as has_after,
        try_variant_get(v, '$.payload.ddl.text', 'string') as ddl_statement
    from parsed
),

classified as (
    select
        *,
        case
            when vendor_op in ('INSERT', 'DELETE', 'UPDATE') then 'change'
            when vendor_op = 'UPDATE_BEFOR' then 'half'
            when vendor_op = 'UPDATE_AFTER' then case when has_before then 'change' else 'half' end
            when vendor_op = 'TRUNCATE' then 'truncate'
            when vendor_op in ({{ ddl_ops }}) then 'ddl'
            when vendor_op in ('MHEARTBEAT', 'TRANSACTION_BEGIN', 'TRANSACTION_END', 'XACOMMIT', 'XAROLLBACK', 'GTID')
                then 'marker'
        end as kind,
        case when sequence_text rlike '^-?[0-9]{1,38}$' then cast(sequence_text as decimal(38, 0)) end as seq,
        case when vendor_op in ('DELETE', 'UPDATE_BEFOR', 'UPDATE_AFTER', 'UPDATE') then before_values end
            as image_before,
        case when vendor_op in ('INSERT', 'UPDATE_AFTER', 'UPDATE') then after_values end as image_after,
        case
            when vendor_op in ('INSERT', 'UPDATE_AFTER', 'UPDATE') and not has_after then 'after'
            when vendor_op in ('DELETE', 'UPDATE_BEFOR', 'UPDATE') and not has_before then 'before'
        end as missing_image,
        coalesce(primary_key, cast(array() as array<string>)) as pk_names,
        transform(data_columns, c -> c.name) as column_names,
        {{ cdc_truncated_table('ddl_statement') }} as truncated_name
    from envelope
),

checked as (
    select
        *,
        case
            {{ cdc_json_object_rejects('value_text') }}
            when vendor_op is null then 'no "payload.op" field'
            when kind is null then 'unknown "payload.op" value "' || vendor_op || '"'
            when sequence_text is not null and seq is null then
                '"payload.sequenceId" is not an integer: "' || sequence_text || '"'
            when kind in ('change', 'half') and coalesce(trim(table_name), '') = '' then
                '"schema.source.tableName" is missing or empty'
            when kind in ('change', 'half') and has_data_columns
                and (data_columns is null or exists(data_columns, c -> c is null or c.name is null)) then
                '"schema.dataColumn" is not an array of {"name", "type"} objects'
            when kind in ('change', 'half') and size(array_distinct(column_names)) != size(column_names) then
                '"schema.dataColumn" names a column twice'
            when kind in ('change', 'half') and has_primary_key
                and (primary_key is null or exists(primary_key, c -> c is null)) then
                '"schema.primaryKey" is not an array of column names'
            when missing_image is not null then vendor_op || ' without "payload.' || missing_image || '"'
            when kind in ('change', 'half') and has_before and before_values is null then
                '"payload.before.dataColumn" is missing or not an object'
            when kind in ('change', 'half') and has_after and after_values is null then
                '"payload.after.dataColumn" is missing or not an object'
            when kind = 'half' and seq is null then
                vendor_op || ' without "payload.sequenceId", which pairs it with the other half of its update'
            when kind in ('change', 'half') and exists(pk_names, c ->
                    (image_before is not null and not map_contains_key(image_before, c))
                    or (image_after is not null and not map_contains_key(image_after, c))) then
                'an image lacks primary key column(s) ' || array_join(pk_names, ', ')
                || ' (schema.primaryKey), so the row it changes cannot be identified'
            when kind = 'truncate' and coalesce(trim(table_name), '') = '' and truncated_name = '' then
                'TRUNCATE names no table'
            when kind = 'ddl' and ddl_statement is null then vendor_op || ' without "payload.ddl.text"'
            when get_json_object(ddl_meta_json, '$.error') is not null then
                'ddlMeta is not a Java-serialized DDLMeta: ' || get_json_object(ddl_meta_json, '$.error')
        end as reject_reason
    from classified
),

typed as (
    select
        *,
        case when reject_reason is not null then 'reject' when kind = 'truncate' then 'change' else kind end
            as record_kind,
        case
            when reject_reason is null and kind in ('change', 'half') and data_columns is not null then
                map_from_entries(transform(data_columns, c -> struct(c.name, c.type)))
            when reject_reason is null and kind in ('change', 'half') then cast(map() as map<string, string>)
        end as column_types
    from checked
),

declared as (
    -- the column types the table declares (var cdc_tables): DataWorks sends every
    -- temporal column as DATE (epoch milliseconds); a declared date, datetime or time
    -- reads it as that
    select
        *,
        {{ cdc_declared_columns(cdc_table_id('db_name', 'schema_name', 'table_name')) }} as declared_types
    from typed
),

described as (
    select
        *,
        -- what the value of each column is read by (cdc_zip_image): its type, and the
        -- table's declared type
        map_zip_with(
            column_types, coalesce(declared_types, map()), (k, t, d) -> named_struct('type', upper(t), 'declared', d)
        ) as column_info
    from declared
),

canonical as (
    select
        *,
        -- both images through one lambda: Spark analyses, optimises and compiles each copy
        -- of the value expression
        case when record_kind in ('change', 'half') then transform(
            array(image_before, image_after),
            img -> {{ cdc_zip_image('img', 'column_info', _dataworks_value('zipped.x', 'zipped.col_info.type', 'zipped.col_info.declared')) }}
        ) end as canonical_images
    from described
),

decoder_rows as (
    select
        {{ cdc_message_columns('dataworks_json') }},
        0 as row_index,
        {{ cdc_truncate_target('db', 'db_name',
                               "coalesce(trim(db_name), '') = '' and coalesce(trim(table_name), '') = ''") }}
            as source_db,
        schema_name as source_schema,
        {{ cdc_truncate_target('table', 'table_name', "coalesce(trim(table_name), '') = ''") }} as source_table,
        case
            when record_kind = 'change' and kind = 'truncate' then 'TRUNCATE'
            when record_kind in ('change', 'half') and vendor_op = 'INSERT'
                and (seq = -1 or event_ms = -1) then 'SNAPSHOT'
            when record_kind in ('change', 'half') and vendor_op in ('INSERT', 'DELETE') then vendor_op
            when record_kind in ('change', 'half') then 'UPDATE'
        end as op,
        vendor_op,
        case when record_kind in ('change', 'half') then pk_names end as pk_columns,
        canonical_images[0] as before,
        canonical_images[1] as after,
        false as before_is_partial,
        false as after_is_partial,
        column_types,
        'dataworks' as type_system,
        -- eventTime is -1 on full-load rows: no source time
        case when event_ms >= 0 then {{ cdc_epoch_timestamp('event_ms') }} end as event_ts,
        case when system_ms >= 0 then {{ cdc_epoch_timestamp('system_ms') }} end as capture_ts,
        case
            when seq is null then cast(array() as array<decimal(38, 0)>)
            when scn_text rlike '^[0-9]{1,38}$' then array(seq, cast(scn_text as decimal(38, 0)))
            else array(seq)
        end as sort_key,
        case when record_kind = 'half' then cast(seq as string) end as pair_key,
        case when record_kind in ('ddl', 'change') and kind in ('ddl', 'truncate') then ddl_statement end
            as ddl_text,
        {{ cdc_db_type_dialect('db_type') }} as ddl_dialect,
        case when record_kind = 'marker' then
            case vendor_op
                when 'MHEARTBEAT' then 'HEARTBEAT'
                when 'TRANSACTION_BEGIN' then 'TX_BEGIN'
                when 'TRANSACTION_END' then 'TX_END'
                when 'XACOMMIT' then 'TX_END'
                else 'OTHER'
            end
        end as marker_kind,
        case when record_kind = 'ddl' then ddl_meta_json end as ddl_meta,
        case when record_kind = 'reject' then 'decode' end as reject_stage,
        reject_reason
    from canonical
)

select {{ cdc_decoded_row(left_out=['tx_id', 'detail', 'document', 'update_operators']) }}
from decoder_rows
{%- endmacro %}


{#- Canonical text of one DataWorks column value `x` (a VARIANT) whose dataColumn type is
    `t` (BOOLEAN, DOUBLE, DATE, BYTES, LONG, STRING; upper-case) and whose declared type
    (var cdc_tables) is `declared` (NULL when none): a DATE is an instant, or the declared
    date, datetime (wall clock) or time (a duration). -#}
{% macro _dataworks_value(x, t, declared) -%}
    {%- set ms = "try_variant_get(" ~ x ~ ", '$', 'string')" -%}
    case
        when {{ x }} is null or is_variant_null({{ x }}) then cast(null as string)
        when schema_of_variant({{ x }}) like 'OBJECT%' or schema_of_variant({{ x }}) like 'ARRAY%'
            then to_json({{ x }})
        -- DATE: epoch milliseconds of a java.util.Date (Julian before 1582-10-15), UTC;
        -- read as the declared type when the table declares one
        when {{ t }} = 'DATE' and {{ ms }} rlike '^-?[0-9]{1,15}$' then
            case {{ cdc_base_type(declared) }}
                when 'date' then {{ cdc_java_epoch_text(ms, 1000, 'date') }}
                when 'datetime' then {{ cdc_java_epoch_text(ms, 1000, 'local') }}
                when 'time' then {{ cdc_duration_text(ms, 3) }}
                else {{ cdc_java_epoch_text(ms, 1000, 'instant') }}
            end
        -- BYTES: base64 of the bytes already; a line-broken rendering is joined
        when {{ t }} = 'BYTES' then regexp_replace(try_variant_get({{ x }}, '$', 'string'), '[\\r\\n]', '')
        when {{ t }} = 'BOOLEAN' then lower(try_variant_get({{ x }}, '$', 'string'))
        when {{ t }} = 'DOUBLE' or schema_of_variant({{ x }}) in ('DOUBLE', 'FLOAT')
            or schema_of_variant({{ x }}) like 'DECIMAL%' then
            {{ cdc_plain_number("try_variant_get(" ~ x ~ ", '$', 'string')") }}
        else try_variant_get({{ x }}, '$', 'string')
    end
{%- endmacro %}
