{#-
    decode_drs_mongo_json: Huawei DRS JSON for DDS (MongoDB) messages to silver rows. The
    format, its rows, keys, order and values: docs block fmt_drs_mongo_json (models/silver/_silver__docs.md);
    FORMATS.md A3 (the clock of `es`).

    The UDF cdc_decode_mongo_change (udfs/mongo.py) reads `value` and `where` (Mongo shell
    text) in one call per message and returns the document as relaxed Extended JSON, its
    top-level fields as canonical text and their types, and the canonical `_id`.
-#}
{% macro decode_drs_mongo_json(messages) -%}
with

messages as (
    select *, {{ cdc_message_text() }} as value_text from {{ messages }}
),

parsed as (
    select *, try_parse_json(value_text) as v
    from messages
),

envelope as (
    select
        *,
        try_variant_get(v, '$.op', 'string') as vendor_op,
        try_variant_get(v, '$.recordType', 'string') as record_type,
        try_variant_get(v, '$.db', 'string') as db_name,
        try_variant_get(v, '$.coll', 'string') as coll_name,
        try_variant_get(v, '$.id', 'string') as id_text,
        try_variant_get(v, '$.es', 'bigint') as es_ms,
        try_variant_get(v, '$.ts', 'bigint') as ts_ms,
        try_variant_get(v, '$.clusterTime', 'string') as cluster_time,
        -- DRS writes value and where as strings; a producer that nests them as JSON is read too
        {{ _mongo_text('v', '$.value') }} as value_shell,
        {{ _mongo_text('v', '$.where') }} as where_shell
    from parsed
),

decoded as (
    select
        *,
        try_parse_json(cdc_decode_mongo_change(value_shell, where_shell)) as change
    from envelope
),

classified as (
    select
        *,
        try_variant_get(change, '$.kind', 'string') as value_kind,
        try_variant_get(change, '$.document', 'string') as document,
        try_variant_get(change, '$.fields', 'map<string,string>') as fields,
        try_variant_get(change, '$.types', 'map<string,string>') as field_types,
        try_variant_get(change, '$.error', 'string') as value_error,
        case
            when vendor_op in ('INSERT', 'UPDATE', 'DELETE') then 'change'
            when vendor_op = 'DDL' then 'ddl'
        end as kind,
        case when id_text rlike '^[0-9]{1,38}$' then cast(id_text as decimal(38, 0)) end as sequence,
        case when cluster_time rlike '^[0-9]{1,18}:[0-9]{1,18}$' then
            array(cast(split_part(cluster_time, ':', 1) as decimal(38, 0)),
                  cast(split_part(cluster_time, ':', 2) as decimal(38, 0)))
        end as cluster_position
    from decoded
),

checked as (
    select
        *,
        case
            {{ cdc_json_object_rejects('value_text') }}
            when vendor_op is null then 'no "op" field'
            when kind is null then 'unknown "op" value "' || vendor_op || '"'
            when id_text is not null and sequence is null then '"id" is not an integer: "' || id_text || '"'
            when cluster_time is not null and cluster_position is null then
                '"clusterTime" is not "<seconds>:<increment>": "' || cluster_time || '"'
            when kind = 'change' and coalesce(trim(coll_name), '') = '' then '"coll" is missing or empty'
            when kind = 'change' and value_shell is null then vendor_op || ' without "value"'
            when kind = 'change' and value_error is not null then value_error
            when kind = 'change' and vendor_op in ('INSERT', 'DELETE') and value_kind = 'operators' then
                vendor_op || ' whose value is update operators, not a document'
            when kind = 'change' and try_variant_get(change, '$.id', 'string') is null then
                'an update without where._id names no document'
            when kind = 'ddl' and value_shell is null then 'DDL without "value"'
            else coalesce(
                {{ cdc_epoch_reject('cluster_position[0]', 's', '"clusterTime"') }},
                {{ cdc_epoch_reject('es_ms', 'ms', '"es"') }}
            )
        end as reject_reason
    from classified
),

decoder_rows as (
    select
        {{ cdc_message_columns('drs_mongo_json') }},
        0 as row_index,
        db_name as source_db,
        coll_name as source_table,
        case when record_kind = 'change' then vendor_op end as op,
        vendor_op || coalesce('/' || record_type, '') as vendor_op,
        case when record_kind = 'change' then array('_id') end as pk_columns,
        case when record_kind = 'change' and vendor_op = 'DELETE' then map('_id', fields['_id']) end as before,
        case when record_kind = 'change' and vendor_op != 'DELETE' then fields end as after,
        -- a delete names only the _id
        record_kind = 'change' and vendor_op = 'DELETE' as before_is_partial,
        record_kind = 'change' and value_kind = 'operators' as after_is_partial,
        case when record_kind = 'change' then field_types end as column_types,
        'bson' as type_system,
        case
            when cluster_position is not null then {{ cdc_epoch_timestamp('cluster_position[0]', 's') }}
            when es_ms >= 0 then {{ cdc_epoch_timestamp('es_ms') }}
        end as event_ts,
        case when ts_ms >= 0 then {{ cdc_epoch_timestamp('ts_ms') }} end as capture_ts,
        concat(
            coalesce(cluster_position, array(cast(0 as decimal(38, 0)), cast(0 as decimal(38, 0)))),
            array(coalesce(sequence, cast(0 as decimal(38, 0))))
        ) as sort_key,
        case when record_kind = 'ddl' then coalesce(document, value_shell) end as ddl_text,
        case when record_kind = 'ddl' then 'mongodb' end as ddl_dialect,
        case when record_kind = 'change' and coalesce(value_kind, '') != 'operators' then document end as document,
        case when record_kind = 'change' and value_kind = 'operators' then document end as update_operators,
        case when record_kind = 'reject' then 'decode' end as reject_stage,
        reject_reason
    from (
        select *, case when reject_reason is not null then 'reject' else kind end as record_kind
        from checked
    ) as kinded
)

select {{ cdc_decoded_row(left_out=[
    'source_schema', 'tx_id', 'pair_key', 'ddl_meta', 'marker_kind', 'detail'
]) }}
from decoder_rows
{%- endmacro %}


{#- The text at `path` of variant `v`: a JSON string as its value, an object or array as
    its JSON text, NULL when absent or JSON null. -#}
{% macro _mongo_text(v, path) -%}
    case
        when not {{ cdc_has_value(v, path) }} then cast(null as string)
        when schema_of_variant(try_variant_get({{ v }}, '{{ path }}', 'variant')) like 'OBJECT%'
            or schema_of_variant(try_variant_get({{ v }}, '{{ path }}', 'variant')) like 'ARRAY%' then to_json(try_variant_get({{ v }}, '{{ path }}', 'variant'))
        else try_variant_get({{ v }}, '{{ path }}', 'string')
    end
{%- endmacro %}
