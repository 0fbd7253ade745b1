{#- Format of a message from its shape alone (FORMATS.md §2), for records with neither a
    declared format nor a topic_formats row. Returns a format id, '?canal' for the Canal
    family (whose members one message cannot tell apart) or NULL when no rule matches.
    Rules in order, first match wins. -#}
{% macro cdc_detect_format(value, encoding, key='null') -%}
    case
        when ({{ value }} is null or {{ value }} = '') and startswith(ltrim({{ key }}), '{') then 'debezium_json'
        when {{ value }} is null or {{ value }} = '' then cast(null as string)
        when {{ encoding }} = 'base64' and hex(substr(try_to_binary({{ value }}, 'base64'), 1, 16)) rlike '^(20|09|0A|0D)*7B'
            -- JSON sent as bytes (DataHub Blob)
            then {{ _cdc_detect_json_format(cdc_base64_text(value)) }}
        when {{ encoding }} = 'base64' then element_at(transform(
            array(try_to_binary({{ value }}, 'base64')),
            bytes -> case
                -- not base64 (try_to_binary: unbase64 would fail the whole query)
                when bytes is null then cast(null as string)
                when hex(substr(bytes, 1, 2)) = 'C301' then 'drs_avro'
                -- DTS NOOP fillers are 48 bytes whatever their first byte (FORMATS.md §2)
                when length(bytes) = 48 then 'dts_avro'
                when hex(substr(bytes, 1, 1)) = '00' then cast(null as string)
                else 'dts_avro'
            end
        ), 1)
        else {{ _cdc_detect_json_format(value) }}
    end
{%- endmacro %}

{#- The JSON rules of cdc_detect_format. -#}
{% macro _cdc_detect_json_format(text) -%}
        element_at(transform(array(try_parse_json({{ text }})), v -> case
            when v is null then cast(null as string)
            -- DataHub Tuple first: its table's own columns sit beside the meta columns at the
            -- top level, and a column named `op`, `type`, `meta`, `payload` ... would match a
            -- rule below; no other format has a top-level `_operation_type_`
            when {{ cdc_has('v', '$._operation_type_') }} then 'datahub_tuple'
            when try_variant_get(v, '$.payload.message_version', 'string') = '1.0'
                or {{ cdc_has('v', '$.payload.DATA_STORE') }} then 'cdl_json'
            when try_variant_get(v, '$.payload.message_version', 'string') = '2.0' then 'debezium_json'
            when {{ cdc_has('v', '$.schema.dataColumn') }} or {{ cdc_has('v', '$.payload.sequenceId') }}
                or {{ cdc_has('v', '$.payload.timestamp.eventTime') }} then 'dataworks_json'
            when ({{ cdc_has('v', '$.payload.op') }} and ({{ cdc_has('v', '$.payload.source') }}
                    or {{ cdc_has('v', '$.payload.before') }} or {{ cdc_has('v', '$.payload.after') }}))
                or ({{ cdc_has('v', '$.payload.ddl') }} and {{ cdc_has('v', '$.payload.databaseName') }})
                or try_variant_get(v, '$.payload.status', 'string') in ('BEGIN', 'END') then 'debezium_json'
            when {{ cdc_has('v', '$.meta.op') }} then 'shareplex_json'
            when {{ cdc_has('v', '$.coll') }} and {{ cdc_has('v', '$.recordType') }} then 'drs_mongo_json'
            when {{ cdc_has('v', '$.isDdl') }} and {{ cdc_has('v', '$.type') }} then
                case when {{ cdc_has('v', '$.columnType') }} or {{ cdc_has('v', '$.opType') }}
                        or {{ cdc_has('v', '$.dbType') }} then 'drs_json' else '?canal' end
            when try_variant_get(v, '$.op', 'string') in ('c', 'u', 'd', 'r', 't', 'm')
                or (try_variant_get(v, '$.status', 'string') in ('BEGIN', 'END') and {{ cdc_has('v', '$.event_count') }})
                or (({{ cdc_has('v', '$.ts_ms') }}) and size(try_variant_get(v, '$', 'map<string,variant>')) = 1)
                then 'debezium_json'
        end), 1)
{%- endmacro %}
