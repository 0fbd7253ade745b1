{{ decode_drs_json_c(cdc_format_messages('drs_json_c')) }}
