{{ decode_debezium_json(cdc_format_messages('debezium_json')) }}
