{{ decode_cdl_json() }}
