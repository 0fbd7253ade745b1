{{ decode_canal_json_legacy() }}
