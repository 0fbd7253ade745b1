{#-
    decode_debezium_json: Debezium change events (Kafka Connect JsonConverter, with or without
    the schema envelope; MRS CDL message_version "2.0") to silver rows. The format, its rows,
    keys, order and values: docs block fmt_debezium_json (models/silver/_silver__docs.md).

    One JSON parse per message (`try_parse_json`, then typed `try_variant_get`).
-#}
{% macro decode_debezium_json(messages) -%}
{%- set snapshot_values = "('true', 'first', 'first_in_data_collection', 'last_in_data_collection', "
    "'last', 'incremental')" -%}
{%- set schema_fields_type = 'array<struct<field: string, fields: array<struct<'
    'field: string, type: string, name: string, parameters: map<string, string>>>>>' -%}
with

messages as (
    select *, {{ cdc_message_text() }} as value_text from {{ messages }}
),

parsed as (
    select
        *,
        try_parse_json(value_text) as v,
        try_parse_json(message_key) as k
    from messages
),

unwrapped as (
    select
        *,
        -- JsonConverter with schemas.enable=true wraps the event (and the key) in {schema, payload}
        case when {{ cdc_has('v', '$.schema') }} and {{ cdc_has_value('v', '$.payload') }}
            then try_variant_get(v, '$.payload', 'variant') else v end as p,
        case when {{ cdc_has_value('v', '$.schema') }} and {{ cdc_has_value('v', '$.payload') }}
            then try_variant_get(v, '$.schema.fields', '{{ schema_fields_type }}') end as schema_fields,
        case when {{ cdc_has('k', '$.schema') }} and {{ cdc_has_value('k', '$.payload') }}
            then try_variant_get(k, '$.payload', 'variant') else k end as kp,
        -- the key's text, for its field names in key order (a variant object sorts its keys)
        case when {{ cdc_has('k', '$.schema') }} and {{ cdc_has_value('k', '$.payload') }}
            then get_json_object(message_key, '$.payload') else message_key end as key_text
    from parsed
),

envelope as (
    select
        *,
        try_variant_get(p, '$.op', 'string') as vendor_op_code,
        lower(try_variant_get(p, '$.source.connector', 'string')) as connector,
        lower(try_variant_get(p, '$.source.snapshot', 'string')) as snapshot_flag,
        try_variant_get(p, '$.source.db', 'string') as db_field,
        try_variant_get(p, '$.source.schema', 'string') as schema_field,
        coalesce(try_variant_get(p, '$.source.table', 'string'), try_variant_get(p, '$.source.collection', 'string'))
            as table_field,
        try_variant_get(p, '$.source.ts_ms', 'bigint') as source_ts_ms,
        try_variant_get(p, '$.ts_ms', 'bigint') as ts_ms,
        cast(nullif(regexp_extract(try_variant_get(p, '$.source.file', 'string'), '[.]([0-9]+)$', 1), '')
            as decimal(38, 0)) as binlog_file_no,
        try_variant_get(p, '$.source.pos', 'decimal(38,0)') as binlog_pos,
        try_variant_get(p, '$.source.row', 'decimal(38,0)') as binlog_row,
        try_variant_get(p, '$.source.lsn', 'decimal(38,0)') as lsn,
        coalesce(
            nullif(try_variant_get(p, '$.source.gtid', 'string'), ''),
            try_variant_get(p, '$.source.txId', 'string'),
            try_variant_get(p, '$.transaction.id', 'string')
        ) as tx_field,
        try_variant_get(p, '$.status', 'string') as tx_status,
        try_variant_get(p, '$.id', 'string') as tx_event_id,
        try_variant_get(p, '$.event_count', 'string') as tx_event_count,
        try_variant_get(p, '$.ddl', 'string') as ddl_field,
        {{ cdc_has('p', '$.ddl') }} or {{ cdc_has('p', '$.tableChanges') }} as is_schema_change,
        try_variant_get(p, '$.databaseName', 'string') as ddl_db,
        try_variant_get(p, '$.schemaName', 'string') as ddl_schema,
        try_variant_get(p, '$.tableChanges[0].id', 'string') as ddl_table_id,
        try_variant_get(p, '$.message.prefix', 'string') as message_prefix,
        size(try_variant_get(p, '$', 'map<string, variant>')) as field_count,
        {{ cdc_has_value('p', '$.before') }} as has_before,
        {{ cdc_has_value('p', '$.after') }} as has_after,
        -- MongoDB sends the documents as Extended JSON strings
        coalesce(
            try_variant_get(p, '$.before', 'map<string, string>'),
            try_variant_get(try_parse_json(try_variant_get(p, '$.before', 'string')), '$', 'map<string, string>')
        ) as raw_before,
        coalesce(
            try_variant_get(p, '$.after', 'map<string, string>'),
            try_variant_get(try_parse_json(try_variant_get(p, '$.after', 'string')), '$', 'map<string, string>')
        ) as raw_after,
        try_variant_get(p, '$.unique', 'map<string, string>') as unique_map,
        try_variant_get(p, '$.LOB_COLUMNS', 'string') as lob_columns,
        try_variant_get(kp, '$', 'map<string, string>') as key_map
    from unwrapped
),

keyed as (
    select
        *,
        case
            when key_map is not null and connector = 'mongodb' and map_contains_key(key_map, 'id') then array('_id')
            when key_map is not null then coalesce(json_object_keys(key_text), map_keys(key_map))
            when unique_map is not null then coalesce(
                json_object_keys(coalesce(get_json_object(value_text, '$.payload.unique'), get_json_object(value_text, '$.unique'))),
                map_keys(unique_map)
            )
            else cast(array() as array<string>)
        end as pk_names,
        case
            when key_map is not null and connector = 'mongodb' and map_contains_key(key_map, 'id') then
                map('_id', coalesce(to_json(try_parse_json(key_map['id'])), key_map['id']))
            else coalesce(key_map, unique_map)
        end as key_image,
        -- the value schema's columns (the `after` struct, else `before`): Connect type,
        -- semantic name and decimal scale; without a schema (or with duplicate names) the
        -- schema Debezium gives the columns the table declares (var cdc_tables), else NULL
        coalesce(element_at(transform(
            array(coalesce(
                element_at(filter(schema_fields, f -> f.field = 'after'), 1).fields,
                element_at(filter(schema_fields, f -> f.field = 'before'), 1).fields
            )),
            cols -> case
                when cols is not null and not exists(cols, f -> f.field is null)
                    and size(array_distinct(transform(cols, f -> f.field))) = size(cols)
                    then map_from_entries(transform(cols, f -> struct(f.field, named_struct(
                        'type', f.type, 'name', f.name, 'scale', f.parameters['scale']
                    ))))
            end
        ), 1), {{ _debezium_declared_schema(cdc_table_id('db_field', 'schema_field', 'table_field')) }}) as column_schema
    from envelope
),

classified as (
    select
        *,
        case
            -- an empty value with a key; without one it is a reject (cdc_empty_value_reject)
            when coalesce(message_value, '') = '' and message_key is not null then 'tombstone'
            when v is null then null
            when not startswith(ltrim(value_text), '{') then null
            when tx_status in ('BEGIN', 'END') then 'tx'
            when is_schema_change then 'ddl'
            when vendor_op_code in ('c', 'r', 'u', 'd', 't') then 'change'
            when vendor_op_code = 'm' then 'message'
            when field_count = 1 and {{ cdc_has('p', '$.ts_ms') }} then 'heartbeat'
        end as kind,
        case vendor_op_code
            when 'c' then case when snapshot_flag in {{ snapshot_values }} then 'SNAPSHOT' else 'INSERT' end
            when 'r' then 'SNAPSHOT'
            when 'u' then 'UPDATE'
            when 'd' then 'DELETE'
            when 't' then 'TRUNCATE'
        end as change_op
    from keyed
),

checked as (
    select
        *,
        case
            when kind = 'tombstone' then null
            {{ cdc_json_object_rejects('value_text') }}
            when kind is null and vendor_op_code is not null then 'unknown "op" value "' || vendor_op_code || '"'
            when kind is null then
                'no "op" field, and not a heartbeat, transaction or schema-change event'
            when kind = 'ddl' and coalesce(trim(ddl_field), '') = '' then 'schema-change event without "ddl"'
            when kind != 'change' then null
            when coalesce(trim(table_field), '') = '' then '"source.table" is missing or empty'
            when has_before and raw_before is null then '"before" is not a row object'
            when has_after and raw_after is null then '"after" is not a row object'
            when change_op in ('INSERT', 'SNAPSHOT', 'UPDATE') and raw_after is null then
                'op "' || vendor_op_code || '" without an "after" image'
            when change_op = 'DELETE' and raw_before is null and key_image is null then
                'DELETE without a "before" image (PostgreSQL REPLICA IDENTITY DEFAULT/NOTHING?) and without a '
                || 'Kafka key or "unique", so the row it deletes cannot be identified'
            when change_op = 'UPDATE' and raw_before is null and size(pk_names) = 0 then
                'UPDATE without a "before" image of a table without a key (no Kafka key, no "unique"), '
                || 'so the row it replaces cannot be identified'
            when change_op in ('INSERT', 'SNAPSHOT', 'UPDATE') and exists(pk_names, c -> not map_contains_key(raw_after, c)) then
                'the "after" image lacks key column(s) ' || array_join(pk_names, ', ')
            else coalesce(
                {{ cdc_epoch_reject('source_ts_ms', 'ms', '"source.ts_ms"') }},
                {{ cdc_epoch_reject('ts_ms', 'ms', '"ts_ms"') }}
            )
        end as reject_reason
    from classified
),

imaged as (
    select
        *,
        case
            when reject_reason is not null then 'reject'
            when kind in ('tombstone', 'tx', 'message', 'heartbeat') then 'marker'
            else kind
        end as record_kind,
        case
            when reject_reason is not null or kind != 'change' or change_op = 'TRUNCATE' then null
            when change_op = 'DELETE' then coalesce(raw_before, key_image)
            else raw_before
        end as before_image,
        case when reject_reason is null and kind = 'change' and change_op != 'DELETE' then raw_after end
            as after_image
    from checked
),

-- unchanged TOASTed PostgreSQL values arrive as a placeholder (text, or its bytes as
-- base64): they are not the value, so the column leaves the image and the image is partial
untoasted as (
    select
        *,
        map_filter(before_image, (c, x) -> x is null or x not in (
            '__debezium_unavailable_value', 'X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ=='
        )) as kept_before,
        map_filter(after_image, (c, x) -> x is null or x not in (
            '__debezium_unavailable_value', 'X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ=='
        )) as kept_after,
        -- decimal columns written as JSON numbers (Flink CDC decimal.format=numeric), not
        -- as base64 bytes: only the variant knows (base64 text can look like a number)
        case when exists(map_values(column_schema), t -> t.name = 'org.apache.kafka.connect.data.Decimal') then
            array_union(
                coalesce(map_keys(map_filter(
                    try_variant_get(p, '$.before', 'map<string, variant>'),
                    (c, x) -> schema_of_variant(x) rlike '^(DECIMAL|BIGINT|INT|SMALLINT|TINYINT|DOUBLE|FLOAT)'
                )), cast(array() as array<string>)),
                coalesce(map_keys(map_filter(
                    try_variant_get(p, '$.after', 'map<string, variant>'),
                    (c, x) -> schema_of_variant(x) rlike '^(DECIMAL|BIGINT|INT|SMALLINT|TINYINT|DOUBLE|FLOAT)'
                )), cast(array() as array<string>))
            )
        end as number_columns
    from imaged
),

described as (
    select
        *,
        -- what the value of each column is read by (cdc_zip_image)
        transform_values(
            column_schema, (c, t) -> named_struct('schema', t, 'is_number', array_contains(number_columns, c))
        ) as column_info
    from untoasted
),

canonical as (
    select
        *,
        -- both images through one lambda: the value expression is large, and Spark analyses,
        -- optimises and compiles each copy of it
        case when column_schema is not null then transform(
            array(kept_before, kept_after),
            img -> {{ cdc_zip_image('img', 'column_info', _debezium_value('zipped.x', 'zipped.col_info.schema', 'zipped.col_info.is_number')) }}
        ) else array(kept_before, kept_after) end as canonical_images,
        -- a before image missing columns of the after image (key-only, PostgreSQL REPLICA
        -- IDENTITY DEFAULT), a delete's row rebuilt from the key, or a TOASTed column dropped
        kept_before is not null and (
            (change_op = 'DELETE' and raw_before is null)
            or size(kept_before) < size(before_image)
            or (kept_after is not null and exists(map_keys(kept_after), c -> not map_contains_key(kept_before, c)))
        ) as before_partial,
        kept_after is not null and size(kept_after) < size(after_image) as after_partial
    from described
),

decoder_rows as (
    select
        {{ cdc_message_columns('debezium_json') }},
        0 as row_index,
        case when kind = 'ddl' then coalesce(ddl_db, db_field) else db_field end as source_db,
        case when kind = 'ddl' then coalesce(ddl_schema, schema_field) else schema_field end as source_schema,
        case
            when kind = 'ddl' then coalesce(element_at(split(regexp_replace(ddl_table_id, '["`]', ''), '[.]'), -1), table_field)
            else table_field
        end as source_table,
        case when record_kind = 'change' then change_op end as op,
        case when kind = 'tx' then tx_status else vendor_op_code end as vendor_op,
        case
            when record_kind = 'change' and change_op = 'TRUNCATE' then cast(array() as array<string>)
            when record_kind = 'change' then pk_names
        end as pk_columns,
        canonical_images[0] as before,
        canonical_images[1] as after,
        coalesce(before_partial, false) as before_is_partial,
        coalesce(after_partial, false) as after_is_partial,
        case when record_kind = 'change' then map_concat(
            coalesce(
                transform_values(column_schema, (c, t) -> concat_ws(' ', t.type, t.name)),
                cast(map() as map<string, string>)
            ),
            -- CDL names its LOB columns (comma-separated)
            coalesce(map_from_arrays(
                array_distinct(filter(split(lob_columns, '\\s*,\\s*'), c -> c != '' and not map_contains_key(coalesce(column_schema, map()), c))),
                transform(array_distinct(filter(split(lob_columns, '\\s*,\\s*'), c -> c != '' and not map_contains_key(coalesce(column_schema, map()), c))), c -> 'LOB')
            ), cast(map() as map<string, string>))
        ) end as column_types,
        'connect' as type_system,
        {{ cdc_epoch_timestamp("case when kind in ('tx', 'heartbeat') then ts_ms else source_ts_ms end") }} as event_ts,
        {{ cdc_epoch_timestamp('ts_ms') }} as capture_ts,
        case
            when binlog_file_no is not null and binlog_pos is not null
                then array(binlog_file_no, binlog_pos, coalesce(binlog_row, 0))
            when lsn is not null then array(lsn)
            when coalesce(source_ts_ms, ts_ms) is not null then array(cast(coalesce(source_ts_ms, ts_ms) as decimal(38, 0)))
            else cast(array() as array<decimal(38, 0)>)
        end as sort_key,
        case when kind = 'tx' then tx_event_id else tx_field end as tx_id,
        case when record_kind = 'ddl' then ddl_field end as ddl_text,
        case
            when connector = 'postgresql' then 'postgres'
            when connector = 'oracle' then 'oracle'
            when connector = 'sqlserver' then 'tsql'
            else 'mysql'
        end as ddl_dialect,
        case when record_kind = 'marker' then
            case kind
                when 'tombstone' then 'TOMBSTONE'
                when 'heartbeat' then 'HEARTBEAT'
                when 'tx' then case tx_status when 'BEGIN' then 'TX_BEGIN' else 'TX_END' end
                else 'OTHER'
            end
        end as marker_kind,
        case
            when record_kind != 'marker' then null
            when kind = 'tombstone' then 'tombstone of key ' || left(coalesce(message_key, ''), 200)
            when kind = 'tx' and tx_event_count is not null then 'event_count=' || tx_event_count
            when kind = 'message' then 'logical decoding message' || coalesce(', prefix ' || message_prefix, '')
        end as detail,
        case when record_kind = 'reject' then 'decode' end as reject_stage,
        reject_reason
    from canonical
)

select {{ cdc_decoded_row(left_out=['pair_key', 'ddl_meta', 'document', 'update_operators']) }}
from decoder_rows
{%- endmacro %}


{#- Canonical text of one column value `x` of a message with a schema; `t` is the column's
    struct(type, name, scale) (NULL: kept as given). Decimals (Connect Decimal bytes as
    base64; a JSON number when the producer wrote numbers, e.g. Flink CDC
    decimal.format=numeric) and VariableScaleDecimal {scale, value} to exact digits;
    io.debezium.time.* and Connect Date/Time/Timestamp to ISO-8601 (wall-clock types without
    zone, Connect Timestamp as a UTC instant with Z); Json compact; floating point without
    exponent; Bits (little-endian bytes) to the number. Enum/EnumSet, Year, ZonedTimestamp,
    bytes (base64), geometry (compact JSON of the struct) and CDL's text types are kept as
    given. -#}
{% macro _debezium_value(x, t, is_number) -%}
    case
        when {{ x }} is null or {{ t }} is null then {{ x }}
        when {{ t }}.name = 'org.apache.kafka.connect.data.Decimal' and coalesce({{ is_number }}, false) then
            {{ cdc_plain_number(x) }}
        -- one copy of the (large) two's-complement expression for both decimal encodings
        when {{ t }}.name in ('org.apache.kafka.connect.data.Decimal', 'io.debezium.data.VariableScaleDecimal') then
            coalesce(
                {{ cdc_twos_complement_decimal(
                    "try_to_binary(case when " ~ t ~ ".name = 'io.debezium.data.VariableScaleDecimal' then "
                    ~ "try_variant_get(try_parse_json(" ~ x ~ "), '$.value', 'string') else " ~ x ~ " end, 'base64')",
                    "case when " ~ t ~ ".name = 'io.debezium.data.VariableScaleDecimal' then "
                    ~ "try_variant_get(try_parse_json(" ~ x ~ "), '$.scale', 'int') else " ~ t ~ ".scale end") }},
                -- a VariableScaleDecimal that is not {scale, value} stays as given
                case when {{ t }}.name = 'io.debezium.data.VariableScaleDecimal' then {{ x }} end
            )
        when {{ t }}.name = 'io.debezium.data.Bits' then
            -- BIT(n > 1): its bits as little-endian bytes -> the number, as MySQL shows it
            coalesce(conv(array_join(reverse(regexp_extract_all(
                hex(try_to_binary({{ x }}, 'base64')), '[0-9A-F]{2}', 0
            )), ''), 16, 10), {{ x }})
        when not {{ x }} rlike '^-?[0-9]+$' then
            case
                when {{ t }}.name = 'io.debezium.data.Json' then {{ cdc_compact_json(x) }}
                when {{ t }}.type in ('float', 'double', 'float32', 'float64') then {{ cdc_plain_number(x) }}
                else {{ x }}
            end
        when {{ t }}.name in ('io.debezium.time.Date', 'org.apache.kafka.connect.data.Date') then
            coalesce({{ cdc_epoch_day_date(x) }}, {{ x }})
        when {{ t }}.name in ('io.debezium.time.Time', 'org.apache.kafka.connect.data.Time') then {{ cdc_duration_text(x, 3) }}
        when {{ t }}.name = 'io.debezium.time.MicroTime' then {{ cdc_duration_text(x, 6) }}
        when {{ t }}.name = 'io.debezium.time.NanoTime' then {{ cdc_duration_text(x, 9) }}
        when {{ t }}.name = 'io.debezium.time.Timestamp' then {{ _debezium_local_datetime(x, 3) }}
        when {{ t }}.name = 'io.debezium.time.MicroTimestamp' then {{ _debezium_local_datetime(x, 6) }}
        when {{ t }}.name = 'io.debezium.time.NanoTimestamp' then {{ _debezium_local_datetime(x, 9) }}
        when {{ t }}.name = 'org.apache.kafka.connect.data.Timestamp' then
            coalesce({{ cdc_iso_instant(cdc_epoch_timestamp(x)) }}, {{ x }})
        else {{ x }}
    end
{%- endmacro %}


{#- ".fraction" of `frac` units of 10^-digits (significant digits only), '' when zero. -#}
{% macro _debezium_fraction(frac, digits) -%}
    case when {{ frac }} = 0 then '' else concat('.', regexp_replace(lpad(cast({{ frac }} as string), {{ digits }}, '0'), '0+$', '')) end
{%- endmacro %}


{#- A time of day counted in 10^-digits seconds since midnight as HH:mm:ss[.fraction]
    (MySQL TIME may pass 24 hours: the hours keep counting). -#}
{% macro cdc_duration_text(x, digits) -%}
    element_at(transform(
        array(cast({{ x }} as bigint)),
        units -> concat(
            case when units < 0 then '-' else '' end,
            -- (lpad would cut hours past 99)
            case when abs(units) < {{ 10 ** digits * 36000 }} then '0' else '' end,
            cast(abs(units) div {{ 10 ** digits * 3600 }} as string), ':',
            lpad(cast(abs(units) div {{ 10 ** digits * 60 }} % 60 as string), 2, '0'), ':',
            lpad(cast(abs(units) div {{ 10 ** digits }} % 60 as string), 2, '0'),
            {{ _debezium_fraction('abs(units) % ' ~ 10 ** digits, digits) }}
        )
    ), 1)
{%- endmacro %}


{#- A wall-clock date-time counted in 10^-digits seconds since 1970-01-01T00:00 (no zone)
    as yyyy-MM-ddTHH:mm:ss[.fraction], without a zone suffix (session time zone UTC). -#}
{% macro _debezium_local_datetime(x, digits) -%}
    element_at(transform(
        array(cast({{ x }} as bigint)),
        units -> concat(
            date_format(timestamp_seconds((units - pmod(units, {{ 10 ** digits }})) div {{ 10 ** digits }}), "yyyy-MM-dd'T'HH:mm:ss"),
            {{ _debezium_fraction('pmod(units, ' ~ 10 ** digits ~ ')', digits) }}
        )
    ), 1)
{%- endmacro %}


{#- The Connect schema Debezium sends for the declared columns of a table (var
    cdc_tables, macro cdc_declared_tables), for messages that come without it
    (JsonConverter schemas.enable=false): map<column, struct<type, name, scale>> as the
    `column_schema` of a message with a schema; NULL when the table declares no columns. -#}
{% macro _debezium_declared_schema(table_id) -%}
    {{ cdc_declared_lookup(table_id, _debezium_connect_struct,
                           'map<string, struct<type: string, name: string, scale: string>>') }}
{%- endmacro %}


{#- The struct(type, name, scale) of _debezium_connect_type, as SQL. -#}
{% macro _debezium_connect_struct(sql_type, dialect) -%}
    {%- set t = _debezium_connect_type(sql_type, dialect) -%}
    named_struct(
        'type', {{ cdc_sql_string(t[0]) }},
        'name', {{ 'cast(null as string)' if t[1] is none else cdc_sql_string(t[1]) }},
        'scale', {{ 'cast(null as string)' if t[2] is none else cdc_sql_string(t[2]) }}
    )
{%- endmacro %}


{#- [Connect type, semantic name, decimal scale] that Debezium's MySQL or PostgreSQL
    connector gives a column of SQL type `sql_type` with its default settings
    (decimal.handling.mode precise, time.precision.mode adaptive_time_microseconds for
    MySQL and adaptive for PostgreSQL, binary.handling.mode bytes). -#}
{% macro _debezium_connect_type(sql_type, dialect) -%}
    {%- set t = sql_type | string | lower | trim -%}
    {%- set base = t.split('(')[0].split(' ')[0] | trim -%}
    {%- set params = t.split('(')[1].split(')')[0].split(',') if '(' in t else [] -%}
    {%- set precision = params[0] | trim | int if params and (params[0] | trim).isdigit() else none -%}
    {%- set scale = params[1] | trim if params | length > 1 else ('0' if params else none) -%}
    {%- set zoned = 'with time zone' in t or base in ('timestamptz', 'timetz') -%}
    {%- if base in ('decimal', 'numeric', 'dec', 'fixed') and (params or dialect != 'postgres') -%}
        {{- return(['bytes', 'org.apache.kafka.connect.data.Decimal', scale or '0']) -}}
    {%- elif base in ('decimal', 'numeric') -%}
        {{- return(['struct', 'io.debezium.data.VariableScaleDecimal', none]) -}}
    {%- elif base in ('float', 'real') and not (base == 'real' and dialect == 'mysql') or base == 'float4' -%}
        {{- return(['float', none, none]) -}}
    {%- elif base in ('double', 'real', 'float8') -%}
        {{- return(['double', none, none]) -}}
    {%- elif base == 'date' -%}
        {{- return(['int32', 'io.debezium.time.Date', none]) -}}
    {%- elif base in ('timestamp', 'timestamptz') and (zoned or dialect == 'mysql') -%}
        {{- return(['string', 'io.debezium.time.ZonedTimestamp', none]) -}}
    {%- elif base in ('datetime', 'timestamp') -%}
        {%- set micro = precision is none and dialect == 'postgres' or (precision or 0) > 3 -%}
        {{- return(['int64', 'io.debezium.time.MicroTimestamp' if micro else 'io.debezium.time.Timestamp', none]) -}}
    {%- elif base in ('time', 'timetz') and zoned -%}
        {{- return(['string', 'io.debezium.time.ZonedTime', none]) -}}
    {%- elif base == 'time' -%}
        {%- set micro = dialect == 'mysql' or precision is none or precision > 3 -%}
        {{- return(['int64' if micro else 'int32', 'io.debezium.time.MicroTime' if micro else 'io.debezium.time.Time',
                    none]) -}}
    {%- elif base == 'year' -%}
        {{- return(['int32', 'io.debezium.time.Year', none]) -}}
    {%- elif base in ('json', 'jsonb') -%}
        {{- return(['string', 'io.debezium.data.Json', none]) -}}
    {%- elif base == 'bit' and (precision or 1) > 1 -%}
        {{- return(['bytes', 'io.debezium.data.Bits', none]) -}}
    {%- elif base in ('bit', 'bool', 'boolean') -%}
        {{- return(['boolean', none, none]) -}}
    {%- elif base in ('binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob', 'bytea') -%}
        {{- return(['bytes', none, none]) -}}
    {%- elif base in ('tinyint', 'smallint', 'int2') -%}
        {{- return(['int16', none, none]) -}}
    {%- elif base in ('mediumint', 'int', 'integer', 'int4', 'serial') -%}
        {{- return(['int64' if 'unsigned' in t else 'int32', none, none]) -}}
    {%- elif base in ('bigint', 'int8', 'bigserial') -%}
        {{- return(['int64', none, none]) -}}
    {%- else -%}
        {{- return(['string', none, none]) -}}
    {%- endif -%}
{%- endmacro %}
