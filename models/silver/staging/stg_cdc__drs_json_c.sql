{{ decode_drs_json_c() }}
