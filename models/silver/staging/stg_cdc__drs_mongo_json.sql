{{ decode_drs_mongo_json() }}
