{#-
    decode_canal_family: the one decoder of the Canal family (canal_json, canal_json_legacy,
    drs_json, drs_json_c), called by each format's decode_<format>. Each format, its rows,
    keys, order and values: docs blocks fmt_<format> (models/silver/_silver__docs.md).

    The four share one envelope and differ only in where the images sit (flags `legacy` and
    `delete_rows_in_old` below):

    | format            | UPDATE before          | UPDATE after          | DELETE row        |
    |-------------------|------------------------|-----------------------|-------------------|
    | canal_json        | data overlaid with old | data                  | data (else old)   |
    | canal_json_legacy | data                   | data overlaid with old| old (else data)   |
    | drs_json          | data overlaid with old | data                  | old (else data)   |
    | drs_json_c        | data overlaid with old | data                  | data (else old)   |

    "Overlaid" (cdc_overlay) goes by key presence, so a partial `old` (Canal) and a full one
    (DRS) take the same code. Reading the DELETE row from the other array when the documented
    one is empty is deliberate leniency: no other decoder accepts a DRS or pre-2022 DTS delete.

    One JSON parse per message (`try_parse_json`, then typed `try_variant_get`: numbers
    keep their digits, JSON null stays distinct from an absent key).
-#}
{% macro decode_canal_family(format_id, messages) -%}
{%- set legacy = format_id == 'canal_json_legacy' -%}
{%- set delete_rows_in_old = format_id in ('canal_json_legacy', 'drs_json') -%}
with

messages as (
    select *, {{ cdc_message_text() }} as value_text from {{ messages }}
),

parsed as (
    select
        *,
        try_parse_json(message_value) as v
    from messages
),

envelope as (
    select
        *,
        try_variant_get(v, '$.type', 'string') as vendor_op,
        upper(try_variant_get(v, '$.type', 'string')) as type_uc,
        coalesce(try_variant_get(v, '$.isDdl', 'boolean'), false) as is_ddl,
        try_variant_get(v, '$.database', 'string') as db_field,
        try_variant_get(v, '$.schema', 'string') as schema_field,
        try_variant_get(v, '$.table', 'string') as table_field,
        try_variant_get(v, '$.sql', 'string') as sql_text,
        try_variant_get(v, '$.dbType', 'string') as db_type,
        try_variant_get(v, '$.es', 'bigint') as es,
        try_variant_get(v, '$.ts', 'bigint') as ts,
        try_variant_get(v, '$.id', 'decimal(38,0)') as seq,
        try_variant_get(v, '$.gtid', 'string') as gtid,
        {{ cdc_gtid_sequence("try_variant_get(v, '$.gtid', 'string')") }} as gtid_seq,
        coalesce(try_variant_get(v, '$.pkNames', 'array<string>'), cast(array() as array<string>)) as pk_names,
        coalesce(
            try_variant_get(v, '$.mysqlType', 'map<string,string>'),
            try_variant_get(v, '$.columnType', 'map<string,string>'),
            cast(map() as map<string, string>)
        ) as column_types,
        try_variant_get(v, '$.data', 'array<map<string,string>>') as data,
        try_variant_get(v, '$.old', 'array<map<string,string>>') as old,
        {{ cdc_has_value('v', '$.data') }} as has_data,
        {{ cdc_has_value('v', '$.old') }} as has_old
    from parsed
),

classified as (
    select
        *,
        case
            when type_uc in ('INSERT', 'UPDATE', 'DELETE', 'INIT') then 'change'
            when type_uc = 'TRUNCATE' then 'truncate'
            when type_uc in ('DDL', 'INIT_DDL', 'CREATE', 'ALTER', 'ERASE', 'RENAME', 'CINDEX', 'DINDEX')
                or (type_uc = 'QUERY' and is_ddl) then
                case when sql_text rlike '(?is)^\\s*truncate\\s' then 'truncate' else 'ddl' end
            when type_uc = 'QUERY' then 'marker'
        end as kind,
        case type_uc when 'INIT' then 'SNAPSHOT' else type_uc end as change_op,
        case
            when type_uc in ('INSERT', 'INIT', 'UPDATE') then data
            when type_uc = 'DELETE' then
                {%- if delete_rows_in_old %}
                case when coalesce(size(old), 0) > 0 then old else data end
                {%- else %}
                case when coalesce(size(data), 0) > 0 then data else old end
                {%- endif %}
        end as change_rows,
        {{ cdc_truncated_table('sql_text') }} as truncated_name,
        -- the type texts of `column_types`, a line each: one regular expression over them
        -- looks for a type at the start of any line (checked, needs_canonical)
        concat_ws(char(10), map_values(column_types)) as type_lines
    from envelope
),

checked as (
    select
        *,
        case
            {{ cdc_json_object_rejects('message_value') }}
            when vendor_op is null then 'no "type" field'
            when kind is null then 'unknown "type" value "' || vendor_op || '"'
            when kind = 'change' and coalesce(trim(table_field), '') = '' then '"table" is missing or empty'
            when kind = 'change' and has_data and (data is null or exists(data, r -> r is null)) then
                '"data" is not an array of row objects'
            when kind = 'change' and has_old and (old is null or exists(old, r -> r is null)) then
                '"old" is not an array of row objects'
            -- (size of a NULL array is -1)
            when kind = 'change' and coalesce(size(change_rows), 0) <= 0 then
                vendor_op || ' message without rows'
            when kind = 'change' and change_op = 'UPDATE' and old is not null and size(old) != size(data) then
                '"old" has ' || size(old) || ' entries for ' || size(data) || ' rows in "data"'
            {%- if legacy %}
            when kind = 'change' and change_op = 'UPDATE' and old is null then
                'UPDATE without "old", which holds the after image in canal_json_legacy'
            {%- endif %}
            when kind = 'change' and exists(pk_names, c -> exists(change_rows, r -> not map_contains_key(r, c))) then
                'a row lacks primary key column(s) ' || array_join(pk_names, ', ')
                || ' (pkNames), so the row it changes cannot be identified'
            when kind = 'truncate' and coalesce(trim(table_field), '') = '' and truncated_name = '' then
                'TRUNCATE names no table'
            else {{ cdc_epoch_reject('es', 'ms', '"es"') }}
        end as reject_reason,
        -- a cheap look at the parsed message first: most hold no value that needs more than
        -- its text. One does when a column's type is one canal_family_value converts, or a
        -- number column's value is in scientific notation. Each message's type texts
        -- (`type_lines`) and values are joined a line each and looked at with one regular
        -- expression each; only a message with a number in scientific notation among its
        -- values goes on to the types of those values' columns (a match per column type
        -- cost a third of decoding 1M Canal messages, one over the whole raw message a fifth)
        coalesce(
            type_lines rlike {{ _canal_family_type_pattern(_canal_family_special_types(format_id), lines=true) }}
            or (
                type_lines rlike {{ _canal_family_type_pattern(_canal_family_number_types(), lines=true) }}
                and concat_ws(char(10), flatten(transform(
                    concat(coalesce(data, array()), coalesce(old, array())), r -> map_values(r)
                ))) rlike {{ cdc_scientific_notation(lines=true) }}
                and exists(
                    map_keys(map_filter(column_types, (c, t) -> t rlike {{ _canal_family_type_pattern(_canal_family_number_types()) }})),
                    c -> exists(concat(coalesce(data, array()), coalesce(old, array())), r -> r[c] rlike {{ cdc_scientific_notation() }})
                )
            ),
            false
        ) as needs_canonical
    from classified
),

imaged as (
    select
        *,
        case when reject_reason is not null then 'reject' when kind = 'truncate' then 'change' else kind end
            as record_kind,
        case
            when reject_reason is not null or kind != 'change' then null
            when change_op in ('INSERT', 'SNAPSHOT') then
                transform(change_rows, d -> named_struct('before', cast(null as map<string, string>), 'after', d))
            when change_op = 'DELETE' then
                transform(change_rows, d -> named_struct('before', d, 'after', cast(null as map<string, string>)))
            {%- if legacy %}
            else transform(data, (d, i) -> named_struct('before', d, 'after', {{ cdc_overlay('d', 'old[i]') }}))
            {%- else %}
            else transform(data, (d, i) -> named_struct(
                'before', case when old is not null then {{ cdc_overlay('d', 'old[i]') }} end, 'after', d
            ))
            {%- endif %}
        end as images
    from checked
),

described as (
    select
        *,
        -- what the value of each column is read by (cdc_zip_image)
        case when needs_canonical then
            {{ cdc_column_info('column_types') }}
        end as column_info
    from imaged
),

exploded as (
    select
        described.*,
        image.pos as image_index,
        image.img.before as raw_before,
        image.img.after as raw_after
    from described
    lateral view outer posexplode(images) image as pos, img
),

canonical as (
    select
        *,
        case when needs_canonical then transform(
            array(raw_before, raw_after),
            img -> {{ cdc_zip_image('img', 'column_info', canal_family_value('zipped.x', 'zipped.col_info.base', 'zipped.col_info.full', format_id)) }}
        ) else array(raw_before, raw_after) end as canonical_images
    from exploded
),

decoder_rows as (
    select
        {{ cdc_message_columns(format_id) }},
        coalesce(image_index, 0) as row_index,
        {{ cdc_truncate_target('db', 'db_field', "coalesce(trim(db_field), '') = ''") }} as source_db,
        schema_field as source_schema,
        {{ cdc_truncate_target('table', 'table_field', "coalesce(trim(table_field), '') = ''") }} as source_table,
        case when record_kind = 'change' then case when kind = 'truncate' then 'TRUNCATE' else change_op end end
            as op,
        vendor_op,
        case when record_kind = 'change' then pk_names end as pk_columns,
        canonical_images[0] as before,
        canonical_images[1] as after,
        false as before_is_partial,
        false as after_is_partial,
        case when record_kind = 'change' then column_types end as column_types,
        {{ cdc_db_type_dialect('db_type') }} as type_system,
        {{ cdc_epoch_timestamp('es') }} as event_ts,
        {{ cdc_epoch_timestamp('ts') }} as capture_ts,
        -- `es` (binlog time, whole seconds), then within a second the GTID's sequence
        -- number and the message's `id` (DRS: one per event; Canal: the batch, which
        -- starts again when Canal restarts, so it cannot come first; DTS: the cache
        -- offset): Kafka coordinates only break what remains tied (cdc_position)
        array(coalesce(cast(es as decimal(38, 0)), -1), coalesce(gtid_seq, -1), coalesce(seq, -1)) as sort_key,
        gtid as tx_id,
        case when record_kind in ('ddl', 'change') and kind != 'change' then sql_text end as ddl_text,
        {{ cdc_db_type_dialect('db_type') }} as ddl_dialect,
        case when record_kind = 'marker' then 'OTHER' end as marker_kind,
        case when record_kind = 'marker' then sql_text end as detail,
        case when record_kind = 'reject' then 'decode' end as reject_stage,
        reject_reason
    from canonical
)

select {{ cdc_decoded_row(left_out=['pair_key', 'ddl_meta', 'document', 'update_operators']) }}
from decoder_rows
{%- endmacro %}


{#- The bytes of a Java byte-array literal (`[106, -1, 0]`, DRS binary columns); NULL when
    an element is not a byte. Split, not matched: no regular expression runs over it. -#}
{% macro _canal_family_byte_list(x) -%}
    element_at(transform(
        array(filter(split(regexp_replace({{ x }}, '[\\[\\] ]', ''), ','), b -> b != '')),
        bytes -> case when forall(bytes, b -> try_cast(b as int) between -128 and 255) then
            unhex(concat_ws('', transform(bytes, b -> lpad(hex(cast(b as int) & 255), 2, '0'))))
        end
    ), 1)
{%- endmacro %}


{#- The base types whose values canal_family_value converts by their type alone (binary and
    geometry, JSON, and per format ENUM and SET or TIMESTAMP); numbers convert by their text. -#}
{% macro _canal_family_special_types(format_id) -%}
    {%- set names = _canal_family_binary_types() + ['json', 'jsonb'] -%}
    {%- if format_id in ('canal_json', 'canal_json_legacy') -%}{%- set names = names + ['enum', 'set'] -%}{%- endif -%}
    {%- if format_id == 'drs_json' -%}{%- set names = names + ['timestamp'] -%}{%- endif -%}
    {{- return(names) -}}
{%- endmacro %}


{#- The base types canal_family_value reads as binary (to base64). -#}
{% macro _canal_family_binary_types() -%}
    {{- return(['binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob', 'bytea', 'raw', 'long raw',
                'image', 'geometry', 'point', 'linestring', 'polygon', 'multipoint', 'multilinestring',
                'multipolygon', 'geometrycollection', 'geomcollection']) -}}
{%- endmacro %}


{#- The base types canal_family_value reads as numbers (scientific notation to plain digits). -#}
{% macro _canal_family_number_types() -%}
    {{- return(['float', 'double', 'real', 'double precision', 'float4', 'float8', 'decimal', 'numeric',
                'number', 'dec', 'fixed', 'binary_float', 'binary_double', 'money']) -}}
{%- endmacro %}


{#- A regular expression (SQL literal) that matches a column's type text whose base type
    (cdc_column_info: the text before any `(`, lower-case) is one of `names`; with `lines`,
    a text with such a type at the start of any of its lines (type_lines). -#}
{% macro _canal_family_type_pattern(names, lines=false) -%}
    '(?i{{ 'm' if lines }})^\\s*({{ names | join('|') }})\\b'
{%- endmacro %}


{#- Canonical text of one Canal-family column value `x` whose base type is `t` (full type
    text `full_t`): binary to base64 (DRS: Java byte-array text or PostgreSQL hex; Canal:
    ISO-8859-1 text), DRS JSON TIMESTAMP epoch seconds to ISO-8601 UTC, floating and
    decimal text in scientific notation to plain digits, Canal ENUM index and SET bitmask
    back to their labels. Other values are kept as the vendor wrote them. -#}
{% macro canal_family_value(x, t, full_t, format_id) -%}
    case
        when {{ x }} is null then null
        when {{ t }} in ('{{ _canal_family_binary_types() | join("', '") }}') then
            -- base64() breaks lines every 76 characters unless spark.sql.chunkBase64String.enabled
            -- is false, which a cluster may not set: remove them. BINARY(n) gets back the
            -- trailing zero bytes the binlog strips, when the type says n (Canal does; DRS's
            -- bare `binary` does not)
            regexp_replace(base64(element_at(transform(array(
        {%- if format_id in ('drs_json', 'drs_json_c') %}
                case
                    -- no pattern with a repeated group: Java's regex engine recurses on
                    -- each repetition and a value of a few kilobytes overflows the stack
                    when {{ t }} = 'bytea' and {{ x }} rlike '^(\\\\x)?[0-9a-fA-F]*$'
                        and length(regexp_replace({{ x }}, '^\\\\x', '')) % 2 = 0 then
                        unhex(regexp_replace({{ x }}, '^\\\\x', ''))
                    when {{ x }} rlike '^\\[[-0-9, ]*\\]$' then
                        coalesce({{ _canal_family_byte_list(x) }}, encode({{ x }}, 'UTF-8'))
                    else encode({{ x }}, 'UTF-8')
                end
        {%- else %}
                case
                    when {{ x }} rlike '^[\\x00-\\xFF]*$' then encode({{ x }}, 'ISO-8859-1')
                    else encode({{ x }}, 'UTF-8')
                end
        {%- endif %}
            ), bytes -> element_at(transform(
                array(try_cast(regexp_extract(lower({{ full_t }}), '^binary\\(([0-9]{1,3})\\)', 1) as int)),
                width -> case when length(bytes) < width then rpad(bytes, width, unhex('00')) else bytes end
            ), 1)), 1)), '[\\r\\n]', '')
        {%- if format_id == 'drs_json' %}
        when {{ t }} = 'timestamp' and {{ x }} rlike '^-?[0-9]+([.][0-9]+)?$' then
            coalesce({{ cdc_iso_instant(cdc_epoch_timestamp('try_cast(' ~ x ~ ' as decimal(30, 6)) * 1000000', 'us')) }}, {{ x }})
        {%- endif %}
        when {{ t }} in ('{{ _canal_family_number_types() | join("', '") }}') then {{ cdc_plain_number(x) }}
        when {{ t }} in ('json', 'jsonb') then {{ cdc_compact_json(x) }}
        {%- if format_id in ('canal_json', 'canal_json_legacy') %}
        when {{ t }} = 'enum' and {{ x }} rlike '^[0-9]{1,9}$'
            and cast({{ x }} as int) between 1 and size(regexp_extract_all({{ full_t }}, "'([^']*)'", 1)) then
            try_element_at(regexp_extract_all({{ full_t }}, "'([^']*)'", 1), cast({{ x }} as int))
        when {{ t }} = 'set' and {{ x }} rlike '^[0-9]{1,18}$' then
            array_join(filter(
                regexp_extract_all({{ full_t }}, "'([^']*)'", 1),
                (label, i) -> shiftright(cast({{ x }} as bigint), i) & 1 = 1
            ), ',')
        {%- endif %}
        else {{ x }}
    end
{%- endmacro %}
