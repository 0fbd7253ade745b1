{#- decode_shareplex_json: Alibaba Cloud DTS "Shareplex Json" messages to silver rows. The
    format, its rows, keys, order and values: docs block fmt_shareplex_json
    (models/silver/_silver__docs.md); FORMATS.md §8 E2. -#}
{% macro decode_shareplex_json(messages) -%}
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
        try_variant_get(v, '$.meta', 'map<string, variant>') as meta,
        try_variant_get(v, '$.meta.op', 'string') as vendor_op,
        regexp_replace(lower(try_variant_get(v, '$.meta.op', 'string')), '[\\s_]', '') as op_code,
        try_variant_get(v, '$.meta.table', 'string') as table_field,
        try_variant_get(v, '$.meta.rowid', 'string') as rowid,
        try_variant_get(v, '$.meta.scn', 'string') as scn_text,
        try_variant_get(v, '$.meta.trans', 'string') as trans,
        try_variant_get(v, '$.meta.seq', 'string') as seq_text,
        try_variant_get(v, '$.meta.time', 'string') as time_text,
        try_variant_get(v, '$.meta.posttime', 'string') as posttime_text,
        try_variant_get(v, '$.data', 'map<string, string>') as data,
        try_variant_get(v, '$.key', 'map<string, string>') as key_image,
        {{ cdc_has_value('v', '$.data') }} as has_data,
        {{ cdc_has_value('v', '$.key') }} as has_key
    from parsed
),

classified as (
    select
        *,
        case
            when op_code in ('ins', 'insert') then 'INSERT'
            when op_code in ('upd', 'update') then 'UPDATE'
            when op_code in ('del', 'delete') then 'DELETE'
            when op_code in ('truncate', 'trunc') then 'TRUNCATE'
            when op_code in ('dropcolumn', 'dropcol') then 'DROP COLUMN'
            when op_code in ('updatebefore', 'updbefore') then 'UPDATE BEFORE'
            when op_code in ('updateafter', 'updafter') then 'UPDATE AFTER'
        end as action,
        coalesce(trans rlike '^[0-9]{1,12}[.][0-9]{1,12}[.][0-9]{1,12}$', false) as is_oracle_trans,
        -- OWNER.TABLE, split on the first dot (a quoted table name may hold more)
        case when instr(table_field, '.') > 0 then substr(table_field, 1, instr(table_field, '.') - 1) end
            as owner_name,
        case when instr(table_field, '.') > 0 then substr(table_field, instr(table_field, '.') + 1) else table_field end
            as table_name
    from envelope
),

checked as (
    select
        *,
        case
            {{ cdc_json_object_rejects('value_text') }}
            when meta is null then 'no "meta" object'
            when vendor_op is null then 'no meta.op'
            when action is null then 'unknown meta.op "' || vendor_op || '"'
            when coalesce(trim(table_name), '') = '' then 'meta.table is missing or empty'
            when has_data and data is null then '"data" is not an object of column values'
            when has_key and key_image is null then '"key" is not an object of column values'
            when scn_text is not null and not scn_text rlike '^[0-9]{1,38}$' then
                'meta.scn "' || scn_text || '" is not a number'
            when seq_text is not null and not seq_text rlike '^[0-9]{1,18}$' then
                'meta.seq "' || seq_text || '" is not a number'
            when action in ('INSERT', 'UPDATE', 'DELETE', 'UPDATE BEFORE', 'UPDATE AFTER')
                and coalesce(trim(rowid), '') = '' and (trans is null or is_oracle_trans) then
                'meta.rowid is missing: Shareplex Json names no key, the ROWID identifies the row'
            when action in ('INSERT', 'DELETE', 'UPDATE') and data is null then
                vendor_op || ' message without "data"'
            when action in ('UPDATE BEFORE', 'UPDATE AFTER') and data is null and key_image is null then
                vendor_op || ' message without "data" or "key"'
        end as reject_reason
    from classified
),

imaged as (
    select
        *,
        case
            when reject_reason is not null then 'reject'
            when action = 'DROP COLUMN' then 'ddl'
            when action in ('UPDATE BEFORE', 'UPDATE AFTER') then 'half'
            else 'change'
        end as record_kind,
        -- no ROWID (a source that has none): no ROWID column, the declared key or none
        case when coalesce(trim(rowid), '') != '' then map('ROWID', rowid) else map() end as rowid_image,
        case
            when coalesce(trim(rowid), '') != '' then array('ROWID')
            else {{ cdc_configured_primary_key(cdc_table_id('owner_name', 'cast(null as string)', 'table_name')) }}
        end as key_columns,
        -- an update half: key overlaid with data (where each half puts its values is not documented)
        {{ cdc_overlay('key_image', 'data') }} as half_image,
        map_keys(coalesce(data, key_image, map())) as named_columns
    from checked
),

decoder_rows as (
    select
        {{ cdc_message_columns('shareplex_json') }},
        0 as row_index,
        owner_name as source_schema,
        table_name as source_table,
        case when record_kind = 'change' then action end as op,
        vendor_op,
        case when record_kind in ('change', 'half') then key_columns end as pk_columns,
        case
            when record_kind = 'reject' then null
            when action = 'DELETE' then {{ cdc_overlay('data', 'rowid_image') }}
            when action = 'UPDATE' then {{ cdc_overlay('key_image', 'rowid_image') }}
            when action = 'UPDATE BEFORE' then {{ cdc_overlay('half_image', 'rowid_image') }}
        end as before,
        case
            when record_kind = 'reject' then null
            when action = 'INSERT' then {{ cdc_overlay('data', 'rowid_image') }}
            when action = 'UPDATE' then {{ cdc_overlay(cdc_overlay('key_image', 'data'), 'rowid_image') }}
            when action = 'UPDATE AFTER' then {{ cdc_overlay('half_image', 'rowid_image') }}
        end as after,
        coalesce(record_kind != 'reject' and action in ('UPDATE', 'UPDATE BEFORE'), false) as before_is_partial,
        coalesce(record_kind != 'reject' and action in ('UPDATE', 'UPDATE AFTER'), false) as after_is_partial,
        case when record_kind in ('change', 'half') then cast(map() as map<string, string>) end as column_types,
        'oracle' as type_system,
        -- "UTC, yyyy-MM-ddTHH:mm:ssZ" says the document; its examples have no Z
        try_to_timestamp(regexp_replace(time_text, 'Z$', '') || 'Z', "yyyy-MM-dd'T'HH:mm:ss[.SSSSSSSSS]X")
            as event_ts,
        try_to_timestamp(regexp_replace(posttime_text, 'Z$', '') || 'Z', "yyyy-MM-dd'T'HH:mm:ss[.SSSSSSSSS]X")
            as capture_ts,
        case
            when record_kind = 'reject' or scn_text is null then cast(array() as array<decimal(38, 0)>)
            else transform(
                array(
                    scn_text,
                    case when is_oracle_trans then split_part(trans, '.', 1) else '0' end,
                    case when is_oracle_trans then split_part(trans, '.', 2) else '0' end,
                    case
                        when is_oracle_trans then split_part(trans, '.', 3)
                        else coalesce(cast({{ cdc_gtid_sequence('trans') }} as string), '0')
                    end,
                    coalesce(seq_text, '0')
                ),
                n -> cast(n as decimal(38, 0))
            )
        end as sort_key,
        trans as tx_id,
        case when record_kind = 'half' then concat_ws('/', trans, rowid, seq_text) end as pair_key,
        case when record_kind = 'ddl' then
            case
                when size(named_columns) = 0 then value_text
                else 'ALTER TABLE ' || concat_ws('.', transform(filter(array(owner_name, table_name), n -> n is not null),
                                                                n -> '"' || n || '"'))
                    || case when size(named_columns) = 1 then ' DROP COLUMN ' || '"' || named_columns[0] || '"'
                            else ' DROP (' || array_join(transform(named_columns, c -> '"' || c || '"'), ', ') || ')' end
            end
        end as ddl_text,
        case when record_kind = 'ddl' then 'oracle' end as ddl_dialect,
        case when record_kind = 'reject' then 'decode' end as reject_stage,
        reject_reason
    from imaged
)

select {{ cdc_decoded_row(left_out=[
    'source_db', 'ddl_meta', 'marker_kind', 'detail', 'document', 'update_operators'
]) }}
from decoder_rows
{%- endmacro %}
