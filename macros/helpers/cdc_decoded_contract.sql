{#- The decoded-row contract: name, Spark SQL type and meaning of every column a decoder
    emits, in order. One row per row change, DDL statement, marker, update half or
    reject. Decoders name the columns they do not have (cdc_decoded_row makes them
    typed NULLs); int_cdc__decoded casts every decoder's output to these types and
    unions the decoders by these names; tests/test_decoder_contract.py checks each
    decoder's own types against it. -#}
{% macro cdc_decoded_contract() -%}
    {{- return([
        {'name': 'message_id', 'type': 'string', 'description': 'md5 of topic, key and value: a re-delivered record has the same id.'},
        {'name': 'vendor_format', 'type': 'string', 'description': 'Format id the message was decoded with.'},
        {'name': 'topic', 'type': 'string', 'description': 'Kafka topic.'},
        {'name': 'kafka_partition', 'type': 'int', 'description': 'Kafka partition.'},
        {'name': 'kafka_offset', 'type': 'bigint', 'description': 'Kafka offset.'},
        {'name': 'kafka_ts', 'type': 'timestamp', 'description': 'Kafka record timestamp (UTC).'},
        {'name': 'message_key', 'type': 'string', 'description': 'Kafka key, kept on reject rows only.'},
        {'name': 'message_value', 'type': 'string', 'description': 'Kafka value, kept on reject rows only.'},
        {'name': 'value_encoding', 'type': 'string', 'description': '`text` or `base64`.'},
        {'name': 'declared_format', 'type': 'string', 'description': 'Format given at landing, if any.'},
        {'name': 'format_source', 'type': 'string', 'description': 'How the format was chosen: `declared`, `topic_formats` or `shape`.'},
        {'name': 'source_file', 'type': 'string', 'description': 'Landed file.'},
        {'name': 'source_line', 'type': 'bigint', 'description': 'Line in the landed file.'},
        {'name': 'landing_batch_id', 'type': 'bigint', 'description': 'Landing batch of the record.'},
        {'name': 'record_kind', 'type': 'string', 'description': '`change`, `ddl`, `marker`, `half` (one half of an update sent as two messages) or `reject`.'},
        {'name': 'row_index', 'type': 'int', 'description': 'Position of the row inside its message (0 for single-row messages).'},
        {'name': 'source_db', 'type': 'string', 'description': 'Source database as the vendor names it.'},
        {'name': 'source_schema', 'type': 'string', 'description': 'Source schema, for engines that have one.'},
        {'name': 'source_table', 'type': 'string', 'description': 'Source table as the vendor names it (untrimmed).'},
        {'name': 'op', 'type': 'string', 'description': 'INSERT, UPDATE, DELETE, SNAPSHOT or TRUNCATE (change and half rows).'},
        {'name': 'vendor_op', 'type': 'string', 'description': "The vendor's operation code as written."},
        {'name': 'pk_columns', 'type': 'array<string>', 'description': 'Primary-key column names (empty for tables without a key).'},
        {'name': 'before', 'type': 'map<string,string>', 'description': 'Before image (column -> canonical text).'},
        {'name': 'after', 'type': 'map<string,string>', 'description': 'After image (column -> canonical text).'},
        {'name': 'before_is_partial', 'type': 'boolean', 'description': 'True when the before image holds only some columns.'},
        {'name': 'after_is_partial', 'type': 'boolean', 'description': 'True when the after image holds only some columns.'},
        {'name': 'column_types', 'type': 'map<string,string>', 'description': 'Column -> type as the vendor writes it, in the type system `type_system`.'},
        {'name': 'type_system', 'type': 'string', 'description': 'The type system of column_types: connect, dts, datahub, bson, dataworks, or the SQL dialect of the source (mysql, postgres, oracle, tsql).'},
        {'name': 'event_ts', 'type': 'timestamp', 'description': 'Change time at the source (UTC).'},
        {'name': 'capture_ts', 'type': 'timestamp', 'description': 'Time the vendor wrote the message (UTC).'},
        {'name': 'sort_key', 'type': 'array<decimal(38,0)>', 'description': 'Position of the change in its source (compared element by element).'},
        {'name': 'tx_id', 'type': 'string', 'description': 'Transaction id.'},
        {'name': 'pair_key', 'type': 'string', 'description': 'The id the two halves of an update sent as two messages share.'},
        {'name': 'ddl_text', 'type': 'string', 'description': 'DDL statement (ddl rows).'},
        {'name': 'ddl_dialect', 'type': 'string', 'description': 'SQL dialect of the statement (sqlglot dialect name, or mongodb).'},
        {'name': 'ddl_meta', 'type': 'string', 'description': 'Structured description of a DDL the vendor sends beside its text, as JSON (DataWorks ddlMeta).'},
        {'name': 'marker_kind', 'type': 'string', 'description': 'HEARTBEAT, TX_BEGIN, TX_END, TOMBSTONE or OTHER (marker rows).'},
        {'name': 'detail', 'type': 'string', 'description': 'What a marker says beside its kind.'},
        {'name': 'document', 'type': 'string', 'description': 'Document stores: the whole document as relaxed Extended JSON (inserts, replacements, deletes by _id).'},
        {'name': 'update_operators', 'type': 'string', 'description': 'Document stores: the update operators of a partial update ($set, $unset, $inc ...), as JSON; gold applies them to the document it holds.'},
        {'name': 'reject_stage', 'type': 'string', 'description': '`land`, `route` or `decode` (reject rows).'},
        {'name': 'reject_reason', 'type': 'string', 'description': 'Why the message was rejected.'}
    ]) -}}
{%- endmacro %}
