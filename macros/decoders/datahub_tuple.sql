{#-
    decode_datahub_tuple: DataHub Tuple records written by DataWorks to silver rows. The
    format, its rows, keys, order and values: docs block fmt_datahub_tuple (models/silver/_silver__docs.md);
    FORMATS.md §7 D; DataWorks "附录:DataHub消息格式", TUPLE part.

    A U record is record_kind 'half' with pair_key = its `_sequence_id_`: int_cdc__update_pairs
    pairs the halves. The key comes from cdc_configured_primary_key.
-#}
{% macro decode_datahub_tuple(messages) -%}
{%- set meta_columns = ['_sequence_id_', '_operation_type_', '_execute_time_', '_excute_time_',
                        '_source_table_', '_before_image_', '_after_image_'] -%}
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
        try_variant_get(v, '$._operation_type_', 'string') as vendor_op,
        {{ cdc_has('v', '$._operation_type_') }} as has_op,
        try_variant_get(v, '$._sequence_id_', 'string') as sequence_text,
        coalesce(
            try_variant_get(v, '$._execute_time_', 'string'),
            try_variant_get(v, '$._excute_time_', 'string')
        ) as execute_text,
        trim(try_variant_get(v, '$._source_table_', 'string')) as table_text,
        try_variant_get(v, '$._before_image_', 'string') as before_flag,
        try_variant_get(v, '$._after_image_', 'string') as after_flag,
        -- the table's columns: every key but the meta columns
        map_filter(
            try_variant_get(v, '$', 'map<string,variant>'),
            (k, x) -> not array_contains(array('{{ meta_columns | join("', '") }}'), k)
        ) as row_values
    from parsed
),

classified as (
    select
        *,
        case
            when vendor_op = 'I' and coalesce(before_flag, 'N') = 'N' and coalesce(after_flag, 'Y') = 'Y'
                then 'insert'
            when vendor_op = 'D' and coalesce(before_flag, 'Y') = 'Y' and coalesce(after_flag, 'N') = 'N'
                then 'delete'
            when vendor_op = 'U' and before_flag = 'Y' and after_flag = 'N' then 'before_half'
            when vendor_op = 'U' and before_flag = 'N' and after_flag = 'Y' then 'after_half'
        end as kind,
        case when sequence_text rlike '^-?[0-9]{1,38}$' then cast(sequence_text as decimal(38, 0)) end as seq,
        split(table_text, '[.]', -1) as table_parts
    from envelope
),

named as (
    select
        *,
        case when size(table_parts) in (2, 3) then try_element_at(table_parts, 1) end as db_name,
        case when size(table_parts) = 3 then try_element_at(table_parts, 2) end as schema_name,
        try_element_at(table_parts, -1) as table_name
    from classified
),

keyed as (
    select
        *,
        {{ cdc_configured_primary_key(cdc_table_id('db_name', 'schema_name', 'table_name')) }} as pk_names,
        {{ cdc_declared_columns(cdc_table_id('db_name', 'schema_name', 'table_name')) }} as declared_types
    from named
),

checked as (
    select
        *,
        case
            {{ cdc_json_object_rejects('value_text') }}
            when not has_op then 'no "_operation_type_" field'
            when vendor_op is null then '"_operation_type_" is null or not a string'
            when vendor_op not in ('I', 'U', 'D') then
                'unknown "_operation_type_" value "' || vendor_op || '" (expected I, U or D)'
            when before_flag not in ('Y', 'N') then '"_before_image_" is "' || before_flag || '", not Y or N'
            when after_flag not in ('Y', 'N') then '"_after_image_" is "' || after_flag || '", not Y or N'
            when kind is null then
                'image flags contradict "_operation_type_" ' || vendor_op || ': "_before_image_" '
                || coalesce(before_flag, 'absent') || ', "_after_image_" ' || coalesce(after_flag, 'absent')
                || case vendor_op
                    when 'I' then ' (an insert has the after image only: N, Y)'
                    when 'D' then ' (a delete has the before image only: Y, N)'
                    else ' (an update record is one half: Y, N for the before image or N, Y for the after image)'
                end
            when sequence_text is not null and seq is null then
                '"_sequence_id_" is not an integer: "' || sequence_text || '"'
            when vendor_op = 'U' and seq is null then
                'U without "_sequence_id_", which pairs it with the other half of its update'
            when coalesce(table_text, '') = '' then '"_source_table_" is missing or empty'
            when size(table_parts) > 3 or exists(table_parts, p -> trim(p) = '') then
                '"_source_table_" is not table, db.table or db.schema.table: "' || table_text || '"'
            when size(row_values) = 0 then 'no table columns besides the meta columns'
            when exists(pk_names, c -> not map_contains_key(row_values, c)) then
                'the image lacks primary key column(s) ' || array_join(pk_names, ', ')
                || ' (var cdc_primary_keys), so the row it changes cannot be identified'
        end as reject_reason
    from keyed
),

canonical as (
    select
        *,
        case when reject_reason is not null then 'reject' when vendor_op = 'U' then 'half' else 'change' end
            as record_kind,
        case when reject_reason is null then
            {{ cdc_zip_image('row_values', 'declared_types', _datahub_tuple_value('zipped.x', 'zipped.col_info', 'k', 'value_text')) }}
        end as image,
        case when reject_reason is null then
            transform_values(row_values, (k, x) -> schema_of_variant(x))
        end as json_types
    from checked
),

decoder_rows as (
    select
        {{ cdc_message_columns('datahub_tuple') }},
        0 as row_index,
        case when record_kind != 'reject' then trim(db_name) end as source_db,
        case when record_kind != 'reject' then trim(schema_name) end as source_schema,
        case when record_kind != 'reject' then trim(table_name) end as source_table,
        case record_kind when 'reject' then null when 'half' then 'UPDATE' else upper(kind) end as op,
        vendor_op,
        case when record_kind != 'reject' then pk_names end as pk_columns,
        case when kind in ('delete', 'before_half') then image end as before,
        case when kind in ('insert', 'after_half') then image end as after,
        false as before_is_partial,
        false as after_is_partial,
        json_types as column_types,
        'datahub' as type_system,
        -- epoch milliseconds, as in the document's example (1649991726000)
        {{ cdc_epoch_timestamp('execute_text') }} as event_ts,
        case when seq is null then cast(array() as array<decimal(38, 0)>) else array(seq) end as sort_key,
        case when record_kind = 'half' then cast(seq as string) end as pair_key,
        case when record_kind = 'reject' then 'decode' end as reject_stage,
        reject_reason
    from canonical
)

select {{ cdc_decoded_row(left_out=[
    'capture_ts', 'tx_id', 'ddl_text', 'ddl_dialect', 'ddl_meta', 'marker_kind', 'detail',
    'document', 'update_operators'
]) }}
from decoder_rows
{%- endmacro %}


{#- Canonical text of one Tuple column value `x` (a VARIANT): JSON null -> NULL, objects
    and arrays -> compact JSON, numbers -> exact digits (a DOUBLE, i.e. an exponent or more
    than 38 digits, as plain digits), booleans true/false, strings as given. A TIMESTAMP
    (epoch microseconds of a java.util.Date) of a column whose declared type (var
    cdc_tables; `declared`, NULL when none) is date, datetime, timestamp or time is that.
    `key` is the column's name and `raw` the message text: a number Spark's VARIANT holds
    as a double (over 38 digits, or an exponent) is read from the text as written. -#}
{% macro _datahub_tuple_value(x, declared, key, raw) -%}
    {%- set us = "try_variant_get(" ~ x ~ ", '$', 'string')" -%}
    {%- set written -%}
        coalesce(nullif(regexp_extract(
            {{ raw }}, concat('"\\Q', {{ key }}, '\\E"\\s*:\\s*(-?[0-9][0-9.eE+-]*)'), 1
        ), ''), {{ us }})
    {%- endset -%}
    case
        when {{ x }} is null or is_variant_null({{ x }}) then cast(null as string)
        when {{ cdc_base_type(declared) }} in ('date', 'datetime', 'timestamp', 'time')
            and {{ us }} rlike '^-?[0-9]{1,18}$' then
            case {{ cdc_base_type(declared) }}
                when 'date' then {{ cdc_java_epoch_text(us, 1000000, 'date') }}
                when 'datetime' then {{ cdc_java_epoch_text(us, 1000000, 'local') }}
                when 'timestamp' then {{ cdc_java_epoch_text(us, 1000000, 'instant') }}
                else {{ cdc_duration_text(us, 6) }}
            end
        when schema_of_variant({{ x }}) like 'OBJECT%' or schema_of_variant({{ x }}) like 'ARRAY%'
            then to_json({{ x }})
        -- a DOUBLE from a number of more than 38 digits or with an exponent: its digits as
        -- written, found after the column's key in the message text (character classes
        -- only: no repeated group runs over the message)
        when schema_of_variant({{ x }}) in ('DOUBLE', 'FLOAT') then {{ cdc_plain_number(written) }}
        when schema_of_variant({{ x }}) like 'DECIMAL%' then
            {{ cdc_plain_number("try_variant_get(" ~ x ~ ", '$', 'string')") }}
        else try_variant_get({{ x }}, '$', 'string')
    end
{%- endmacro %}
