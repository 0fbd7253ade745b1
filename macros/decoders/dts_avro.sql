{#-
    decode_dts_avro: Alibaba Cloud DTS Avro messages to silver rows. The format, its rows,
    keys, order and values: docs block fmt_dts_avro (models/silver/_silver__docs.md); FORMATS.md §8 E1.

    The Python UDF cdc_decode_dts_avro (udfs/dts_avro.py) is called once per message and
    returns JSON with every value already as canonical text; that JSON is parsed once.
-#}
{% macro decode_dts_avro(messages) -%}
{%- set change_ops = "'INSERT', 'UPDATE', 'DELETE', 'INIT'" -%}
{%- set marker_ops = "'BEGIN', 'COMMIT', 'ROLLBACK', 'ABORT', 'HEARTBEAT', 'CHECKPOINT', "
    "'COMMAND', 'FILL', 'FINISH', 'CONTROL', 'RDB', 'NOOP'" -%}
with

messages as (
    select *, {{ cdc_message_text() }} as value_text from {{ messages }}
),

-- the one call of the Python UDF per message
decoded as (
    select
        *,
        cdc_decode_dts_avro(message_value) as decoded_json
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
        coalesce(try_variant_get(v, '$.noop', 'boolean'), false) as is_noop,
        try_variant_get(v, '$.operation', 'string') as vendor_op,
        try_variant_get(v, '$.objectName', 'string') as object_name,
        try_variant_get(v, '$.sourceType', 'string') as source_type,
        try_variant_get(v, '$.sourceTimestamp', 'bigint') as source_ts,
        try_variant_get(v, '$.sourcePosition', 'string') as source_position,
        try_variant_get(v, '$.sourceTxid', 'string') as source_txid,
        try_variant_get(v, '$.bornTimestamp', 'bigint') as born_ts,
        try_variant_get(v, '$.processTimestamps', 'array<bigint>') as process_ts,
        try_variant_get(v, '$.tags', 'map<string, string>') as tags,
        try_variant_get(v, '$.fields', 'array<struct<name: string, dataTypeNumber: int>>') as fields,
        try_variant_get(v, '$.before', 'array<string>') as before_values,
        try_variant_get(v, '$.after', 'array<string>') as after_values,
        try_variant_get(v, '$.beforeTypes', 'array<string>') as before_types,
        try_variant_get(v, '$.afterTypes', 'array<string>') as after_types,
        try_variant_get(v, '$.beforeMissing', 'array<int>') as before_missing,
        try_variant_get(v, '$.afterMissing', 'array<int>') as after_missing,
        try_variant_get(v, '$.ddl', 'string') as ddl_statement
    from parsed
),

named as (
    select
        *,
        case
            when is_noop then 'marker'
            when vendor_op in ({{ change_ops }}) then 'change'
            -- DTS sends TRUNCATE as a DDL statement; like the Canal family, it is a TRUNCATE change
            when vendor_op = 'DDL' and ddl_statement rlike '(?is)^\\s*truncate\\s' then 'truncate'
            when vendor_op = 'DDL' then 'ddl'
            when vendor_op in ({{ marker_ops }}) then 'marker'
        end as kind,
        transform(fields, f -> f.name) as field_names,
        -- `db.table` or `db.schema.table`; a dot inside a name is written as the 6 characters \u002E
        transform(split(object_name, '[.]'), part -> replace(part, '\\u002E', '.')) as name_parts,
        try_parse_json(tags['pk_uk_info']) as pk_uk_info,
        {{ cdc_truncated_table('ddl_statement') }} as truncated_name
    from envelope
),

located as (
    select
        *,
        {{ cdc_truncate_target('db', 'element_at(name_parts, 1)', 'coalesce(size(name_parts), 0) < 2') }}
            as db_name,
        case when size(name_parts) = 3 then name_parts[1] end as schema_name,
        {{ cdc_truncate_target('table', 'case when size(name_parts) in (2, 3) then element_at(name_parts, -1) end',
                               "coalesce(size(name_parts), 0) not in (2, 3) and truncated_name != ''") }}
            as table_name,
        coalesce(try_variant_get(pk_uk_info, '$.PRIMARY', 'array<string>'), cast(array() as array<string>))
            as primary_key,
        map_filter(
            coalesce(try_variant_get(pk_uk_info, '$', 'map<string, array<string>>'), map()),
            (k, cols) -> k != 'PRIMARY' and size(cols) > 0
        ) as unique_keys
    from named
),

keyed as (
    select
        *,
        case
            when size(primary_key) > 0 then primary_key
            when size({{ cdc_configured_primary_key(cdc_table_id('db_name', 'schema_name', 'table_name')) }}) > 0
                then {{ cdc_configured_primary_key(cdc_table_id('db_name', 'schema_name', 'table_name')) }}
            when size(unique_keys) > 0 then unique_keys[array_min(map_keys(unique_keys))]
            else cast(array() as array<string>)
        end as key_columns
    from located
),

checked as (
    select
        *,
        case
            {{ cdc_empty_value_reject() }}
            when v is null then 'the DTS Avro decoder returned unreadable output'
            when decode_error is not null then decode_error
            when vendor_op is null then 'DTS Avro Record without operation'
            when kind is null then 'unknown operation "' || vendor_op || '"'
            when kind = 'change' and coalesce(trim(object_name), '') = '' then
                vendor_op || ' without objectName'
            when kind = 'change' and size(name_parts) not in (2, 3) then
                'objectName "' || object_name || '" is not db.table or db.schema.table'
            when kind = 'change' and fields is null then vendor_op || ' without fields'
            when kind = 'change' and exists(field_names, n -> n is null or n = '') then 'a field without a name'
            when kind = 'change' and size(array_distinct(field_names)) != size(field_names) then
                'duplicate field names in ' || array_join(field_names, ', ')
            when kind = 'change' and vendor_op in ('INSERT', 'INIT', 'UPDATE') and after_values is null then
                vendor_op || ' without afterImages'
            when kind = 'change' and vendor_op = 'DELETE' and before_values is null then
                'DELETE without beforeImages'
            when kind = 'change' and before_values is not null and size(before_values) != size(fields) then
                'beforeImages has ' || size(before_values) || ' values for ' || size(fields) || ' fields'
            when kind = 'change' and after_values is not null and size(after_values) != size(fields) then
                'afterImages has ' || size(after_values) || ' values for ' || size(fields) || ' fields'
            when kind = 'ddl' and coalesce(trim(ddl_statement), '') = '' then 'DDL without a statement in afterImages'
            when kind = 'truncate' and table_name is null then 'TRUNCATE names no table'
            else {{ cdc_epoch_reject('source_ts', 's', 'sourceTimestamp') }}
        end as reject_reason
    from keyed
),

imaged as (
    select
        *,
        case when reject_reason is not null then 'reject' when kind = 'truncate' then 'change' else kind end
            as record_kind,
        case when reject_reason is null and kind = 'change' and before_values is not null then map_filter(
            map_from_arrays(field_names, before_values),
            (k, x) -> not exists(coalesce(before_missing, array()), i -> try_element_at(field_names, i + 1) = k)
        ) end as before_image,
        case when reject_reason is null and kind = 'change' and after_values is not null then map_filter(
            map_from_arrays(field_names, after_values),
            (k, x) -> not exists(coalesce(after_missing, array()), i -> try_element_at(field_names, i + 1) = k)
        ) end as after_image
    from checked
),

-- a change whose image lacks a key column cannot say which row it changes
key_checked as (
    select
        * except (record_kind, reject_reason),
        case
            when record_kind = 'change' and kind = 'change' and exists(key_columns, c -> not map_contains_key(
                case when vendor_op = 'DELETE' then before_image else {{ cdc_overlay('before_image', 'after_image') }} end, c
            )) then 'reject'
            else record_kind
        end as record_kind,
        case
            when record_kind = 'change' and kind = 'change' and exists(key_columns, c -> not map_contains_key(
                case when vendor_op = 'DELETE' then before_image else {{ cdc_overlay('before_image', 'after_image') }} end, c
            )) then 'the image lacks key column(s) ' || array_join(key_columns, ', ')
                || ', so the row it changes cannot be identified'
            else reject_reason
        end as reject_reason
    from imaged
),

decoder_rows as (
    select
        {{ cdc_message_columns('dts_avro') }},
        0 as row_index,
        db_name as source_db,
        schema_name as source_schema,
        table_name as source_table,
        case
            when record_kind = 'change' and kind = 'truncate' then 'TRUNCATE'
            when record_kind = 'change' then case vendor_op when 'INIT' then 'SNAPSHOT' else vendor_op end
        end as op,
        vendor_op,
        case when record_kind = 'change' then key_columns end as pk_columns,
        case when record_kind = 'change' then before_image end as before,
        case when record_kind = 'change' then after_image end as after,
        coalesce(record_kind = 'change' and size(before_missing) > 0, false) as before_is_partial,
        coalesce(record_kind = 'change' and size(after_missing) > 0, false) as after_is_partial,
        case when record_kind = 'change' and kind = 'change' then map_from_arrays(
            field_names,
            transform(fields, (f, i) -> concat_ws(' ',
                -- dataTypeNumber: the Avro field's own name
                cast(f.dataTypeNumber as string),  -- noqa: CP02
                coalesce(try_element_at(after_types, i + 1), try_element_at(before_types, i + 1))
            ))
        ) end as column_types,
        'dts' as type_system,
        {{ cdc_epoch_timestamp('source_ts', 's') }} as event_ts,
        -- when DTS last handled the record, else when it was born in the source log
        {{ cdc_epoch_timestamp('coalesce(try_element_at(process_ts, -1), nullif(born_ts, 0))') }} as capture_ts,
        case
            when source_ts is null then cast(array() as array<decimal(38, 0)>)
            when source_position rlike '^[0-9]{1,30}@[0-9]{1,30}$' then array(
                cast(source_ts as decimal(38, 0)),
                cast(split_part(source_position, '@', 2) as decimal(38, 0)),
                cast(split_part(source_position, '@', 1) as decimal(38, 0))
            )
            else array(cast(source_ts as decimal(38, 0)))
        end as sort_key,
        nullif(source_txid, '') as tx_id,
        case when record_kind = 'ddl' or (record_kind = 'change' and kind = 'truncate') then ddl_statement end
            as ddl_text,
        case
            when source_type = 'Oracle' then 'oracle'
            when source_type = 'SQLServer' then 'tsql'
            when source_type in ('PostgreSQL', 'PPAS') then 'postgres'
            else 'mysql'
        end as ddl_dialect,
        case
            when record_kind != 'marker' then null
            when vendor_op = 'BEGIN' then 'TX_BEGIN'
            when vendor_op = 'COMMIT' then 'TX_END'
            when vendor_op in ('HEARTBEAT', 'CHECKPOINT') then 'HEARTBEAT'
            else 'OTHER'
        end as marker_kind,
        case
            when record_kind = 'marker' and is_noop then '48-byte NOOP filler'
            when record_kind = 'marker' then concat_ws(' ', vendor_op, object_name, source_position)
        end as detail,
        case when record_kind = 'reject' then 'decode' end as reject_stage,
        reject_reason
    from key_checked
)

select {{ cdc_decoded_row(left_out=['pair_key', 'ddl_meta', 'document', 'update_operators']) }}
from decoder_rows
{%- endmacro %}
