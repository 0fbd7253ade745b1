{{ decode_debezium_json() }}
