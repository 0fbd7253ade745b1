{{ decode_drs_json() }}
