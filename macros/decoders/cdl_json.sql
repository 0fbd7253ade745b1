{#-
    decode_cdl_json: Huawei MRS CDL JSON (message_version "1.0") messages to silver rows. The
    format, its rows, keys, order and values: docs block fmt_cdl_json (models/silver/_silver__docs.md);
    FORMATS.md §5 B1.

    One JSON parse per message (`try_parse_json` of value_text, then typed
    `try_variant_get`: numbers keep their digits, JSON null stays distinct from absent).
-#}
{% macro decode_cdl_json(messages) -%}
{%- set field_type = 'array<struct<field: string, type: string, name: string, parameters: map<string, string>>>' -%}
with

messages as (
    select *, {{ cdc_message_text() }} as value_text from {{ messages }}
),

parsed as (
    select
        *,
        try_parse_json(value_text) as v
    from messages
),

envelope as (
    select
        *,
        {{ cdc_has_value('v', '$.payload') }} as has_payload,
        try_variant_get(v, '$.payload', 'map<string, variant>') as payload_object,
        try_variant_get(v, '$.payload.message_version', 'string') as message_version,
        try_variant_get(v, '$.payload.OPERATION', 'string') as vendor_op,
        upper(trim(try_variant_get(v, '$.payload.OPERATION', 'string'))) as op_uc,
        try_variant_get(v, '$.payload.SEG_OWNER', 'string') as seg_owner,
        try_variant_get(v, '$.payload.TABLE_NAME', 'string') as table_name,
        try_variant_get(v, '$.payload.TIMESTAMP', 'bigint') as timestamp_ms,
        try_variant_get(v, '$.payload.LOB_COLUMNS', 'string') as lob_columns,
        try_variant_get(v, '$.payload.HEARTBEAT_IDENTIFIER', 'string') as heartbeat_identifier,
        try_variant_get(v, '$.payload.transaction.properties', 'array<struct<name: string, value: decimal(38, 0)>>')
            as properties,
        try_variant_get(v, '$.payload.data', 'map<string, string>') as data,
        try_variant_get(v, '$.payload.before', 'map<string, string>') as before_image,
        try_variant_get(v, '$.payload.unique', 'map<string, string>') as unique_key,
        {{ cdc_has_value('v', '$.payload.data') }} as has_data,
        {{ cdc_has_value('v', '$.payload.before') }} as has_before,
        {{ cdc_has_value('v', '$.payload.unique') }} as has_unique,
        try_variant_get(
            v, '$.schema.fields',
            'array<struct<field: string, type: string, name: string, fields: {{ field_type }}>>'
        ) as schema_fields
    from parsed
),

described as (
    select
        *,
        -- column -> Connect field of the row struct (`data`, else `before`); first one wins
        -- if a malformed schema names a column twice (map_concat would throw)
        aggregate(
            coalesce(
                element_at(filter(schema_fields, f -> f.field = 'data'), 1).fields,
                element_at(filter(schema_fields, f -> f.field = 'before'), 1).fields,
                cast(array() as {{ field_type }})
            ),
            cast(map() as map<string, struct<field: string, type: string, name: string, parameters: map<string, string>>>),
            (acc, f) -> case
                when f.field is null or map_contains_key(acc, f.field) then acc
                else map_concat(acc, map(f.field, f))
            end
        ) as fields,
        element_at(filter(schema_fields, f -> f.field = 'unique'), 1).fields as unique_fields,
        coalesce(
            element_at(filter(properties, p -> lower(p.name) = 'lsn'), 1).value,
            element_at(filter(properties, p -> lower(p.name) = 'scn'), 1).value,
            element_at(filter(properties, p -> lower(p.name) = 'commit_scn'), 1).value
        ) as log_position,
        element_at(filter(properties, p -> lower(p.name) = 'txid'), 1).value as tx_number,
        filter(transform(split(lob_columns, '[,;\\s]+'), c -> trim(c)), c -> c != '') as lob_names
    from envelope
),

classified as (
    select
        *,
        case
            when lower(trim(seg_owner)) = 'cdc_cdl' and lower(trim(table_name)) = 'cdc_heartbeat' then 'marker'
            when op_uc in ('INSERT', 'UPDATE', 'DELETE') then 'change'
        end as kind,
        -- the key columns in the order of the `unique` struct (a map from the variant has
        -- its keys sorted, the schema keeps the declared order)
        case
            when unique_key is null then cast(array() as array<string>)
            when unique_fields is not null then
                filter(transform(unique_fields, f -> f.field), c -> map_contains_key(unique_key, c))
            else map_keys(unique_key)
        end as pk_names
    from described
),

checked as (
    select
        *,
        case
            {{ cdc_json_object_rejects('value_text') }}
            when not has_payload or payload_object is null then 'no "payload" object (CDL JSON is {"schema", "payload"})'
            when message_version is not null and message_version != '1.0' then
                'payload.message_version is "' || message_version || '", not "1.0" (2.0 is debezium_json)'
            when vendor_op is null then 'no payload.OPERATION'
            when kind is null then 'unknown payload.OPERATION "' || vendor_op || '"'
            when coalesce(trim(table_name), '') = '' then 'payload.TABLE_NAME is missing or empty'
            when has_data and data is null then 'payload.data is not an object of column values'
            when has_before and before_image is null then 'payload.before is not an object of column values'
            when has_unique and unique_key is null then 'payload.unique is not an object of key values'
            when kind = 'change' and op_uc in ('INSERT', 'UPDATE') and data is null then
                vendor_op || ' without payload.data'
            when kind = 'change' and op_uc = 'DELETE' and before_image is null and unique_key is null then
                'DELETE without payload.before or payload.unique'
            when kind = 'change' and exists(
                pk_names,
                c -> not map_contains_key(case when op_uc = 'DELETE' then coalesce(before_image, unique_key) else data end, c)
            ) then
                'the row lacks primary key column(s) ' || array_join(pk_names, ', ')
                || ' (payload.unique), so the row it changes cannot be identified'
            else {{ cdc_epoch_reject('timestamp_ms', 'ms', 'payload.TIMESTAMP') }}
        end as reject_reason
    from classified
),

imaged as (
    select
        *,
        case when reject_reason is not null then 'reject' else kind end as record_kind,
        case when reject_reason is null and op_uc in ('UPDATE', 'DELETE') then
            -- a DELETE of a PostgreSQL table without REPLICA IDENTITY FULL may carry only the key
            case when op_uc = 'DELETE' then coalesce(before_image, unique_key) else before_image end
        end as raw_before,
        case when reject_reason is null and (op_uc in ('INSERT', 'UPDATE') or kind = 'marker') then data end
            as raw_after,
        op_uc = 'DELETE' and before_image is null as before_from_unique,
        -- CDL leaves an unchanged LOB out of an UPDATE's `data`: the row keeps its value
        op_uc = 'UPDATE' and exists(lob_names, c -> not map_contains_key(data, c)) as lob_left_out,
        -- only columns with a logical type, a float or bytes need more than their JSON text
        exists(map_values(fields), f -> f.name is not null or f.type in ('float32', 'float64', 'bytes'))
            as needs_canonical
    from checked
),

canonical as (
    select
        *,
        case when needs_canonical then transform(
            array(raw_before, raw_after),
            img -> {{ cdc_zip_image('img', 'fields', _cdl_json_value('zipped.x', 'zipped.col_info')) }}
        ) else array(raw_before, raw_after) end as images
    from imaged
),

decoder_rows as (
    select
        {{ cdc_message_columns('cdl_json') }},
        0 as row_index,
        seg_owner as source_schema,
        table_name as source_table,
        case when record_kind = 'change' then op_uc end as op,
        vendor_op,
        case when record_kind = 'change' then pk_names end as pk_columns,
        case when record_kind = 'change' then images[0] end as before,
        case when record_kind = 'change' then images[1] end as after,
        coalesce(record_kind = 'change' and before_from_unique, false) as before_is_partial,
        coalesce(record_kind = 'change' and lob_left_out, false) as after_is_partial,
        case when record_kind = 'change' then
            transform_values(fields, (k, f) -> concat_ws(' ', f.type, f.name))
        end as column_types,
        'connect' as type_system,
        {{ cdc_epoch_timestamp('timestamp_ms') }} as event_ts,
        case
            when log_position is not null and tx_number is not null then array(log_position, tx_number)
            when log_position is not null then array(log_position)
            when timestamp_ms is not null then array(cast(timestamp_ms as decimal(38, 0)))
            else cast(array() as array<decimal(38, 0)>)
        end as sort_key,
        cast(tx_number as string) as tx_id,
        case when record_kind = 'marker' then 'HEARTBEAT' end as marker_kind,
        case when record_kind = 'marker' then
            concat_ws(' ', heartbeat_identifier, to_json(images[1]))
        end as detail,
        case when record_kind = 'reject' then 'decode' end as reject_stage,
        reject_reason
    from canonical
)

select {{ cdc_decoded_row(left_out=[
    'source_db', 'capture_ts', 'pair_key', 'ddl_text', 'ddl_dialect', 'ddl_meta', 'document',
    'update_operators'
]) }}
from decoder_rows
{%- endmacro %}


{#- Canonical text of one CDL column value `x` (its JSON text) described by the Connect
    field `f` (type, logical name, parameters). Kafka Connect logical types: Timestamp
    (epoch ms) -> ISO-8601 UTC; Date (days, 0001-01-01 to 9999-12-31) -> yyyy-MM-dd; Time
    (ms; MySQL TIME passes 24 h and may be negative) -> [-]HH:mm:ss[.fff]; Decimal (bytes: base64 of the two's-complement unscaled value, scale in
    the parameters) -> exact digits. CDL's own `...cdc.data.Decimal` is text, kept as
    given; floats in scientific notation -> plain digits; bytes stay base64 (one line). -#}
{% macro _cdl_json_value(x, f) -%}
    case
        when {{ x }} is null then null
        when {{ f }}.name = 'org.apache.kafka.connect.data.Timestamp' and {{ x }} rlike '^-?[0-9]{1,15}$' then
            coalesce({{ cdc_iso_instant(cdc_epoch_timestamp(x)) }}, {{ x }})
        when {{ f }}.name = 'org.apache.kafka.connect.data.Date' and {{ x }} rlike '^-?[0-9]{1,7}$' then
            coalesce({{ cdc_epoch_day_date(x) }}, {{ x }})
        when {{ f }}.name = 'org.apache.kafka.connect.data.Time' and {{ x }} rlike '^-?[0-9]{1,13}$' then
            -- hours keep counting past 24 (MySQL TIME reaches 838:59:59, and may be negative)
            {{ cdc_duration_text(x, 3) }}
        when {{ f }}.name = 'org.apache.kafka.connect.data.Decimal' and {{ f }}.type = 'bytes' then
            -- exact at any length; bytes that are not base64 are kept as given
            coalesce({{ cdc_twos_complement_decimal(
                "try_to_binary(" ~ x ~ ", 'base64')", "coalesce(try_cast(" ~ f ~ ".parameters['scale'] as int), 0)"
            ) }}, {{ x }})
        when {{ f }}.type in ('float32', 'float64') then {{ cdc_plain_number(x) }}
        when {{ f }}.type = 'bytes' then regexp_replace({{ x }}, '\\s', '')
        else {{ x }}
    end
{%- endmacro %}
