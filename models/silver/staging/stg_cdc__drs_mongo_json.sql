{{ decode_drs_mongo_json(cdc_format_messages('drs_mongo_json')) }}
