{{ decode_canal_json() }}
