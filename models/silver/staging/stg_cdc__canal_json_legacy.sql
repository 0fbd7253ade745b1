{{ decode_canal_json_legacy(cdc_format_messages('canal_json_legacy')) }}
