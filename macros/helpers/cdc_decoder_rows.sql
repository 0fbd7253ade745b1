{#- Pieces every decoder's output shares (see cdc_decoded_columns). -#}

{#- The first columns of a decoder's row: the message it came from, as routing passed
    it on, with the key and value kept only on rejects (bronze keeps them for the rest),
    then record_kind. Expects the columns of cdc_new_messages and `record_kind`. -#}
{% macro cdc_message_columns(format_id) -%}
        message_id,
        '{{ format_id }}' as vendor_format,
        topic,
        kafka_partition,
        kafka_offset,
        kafka_ts,
        case when record_kind = 'reject' then message_key end as message_key,
        case when record_kind = 'reject' then message_value end as message_value,
        value_encoding,
        declared_format,
        format_source,
        source_file,
        source_line,
        landing_batch_id,
        record_kind
{%- endmacro %}


{#- The first `when` branches of a JSON decoder's reject reason: the value `text` is
    not UTF-8 text (bytes landed as base64), is not JSON (`v`, its parse, is NULL), or
    is JSON but not an object. -#}
{% macro cdc_json_object_rejects(text, v='v') -%}
            when {{ text }} is null then 'value is not UTF-8 text'
            when {{ v }} is null then 'value is not valid JSON'
            when not startswith(ltrim({{ text }}), '{') then
                'value is a JSON ' || case when startswith(ltrim({{ text }}), '[') then 'array' else 'scalar' end
                || ', not an object'
{%- endmacro %}


{#- The table a TRUNCATE statement names (`db.table` or `table`, quotes removed), or ''
    when `sql` is not a TRUNCATE. -#}
{% macro cdc_truncated_table(sql) -%}
    regexp_replace(
        regexp_extract({{ sql }}, '(?is)^\\s*truncate\\s+(?:table\\s+)?([^\\s;(]+)', 1), '[`"\\[\\]]', ''
    )
{%- endmacro %}


{#- The text of a value landed as base64 bytes; NULL when they are not UTF-8. -#}
{% macro cdc_base64_text(value) -%}
    try_validate_utf8(cast(try_to_binary({{ value }}, 'base64') as string))
{%- endmacro %}
