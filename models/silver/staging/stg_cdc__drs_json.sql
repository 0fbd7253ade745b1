{{ decode_drs_json(cdc_format_messages('drs_json')) }}
