{{ decode_canal_json(cdc_format_messages('canal_json')) }}
