{{ decode_cdl_json(cdc_format_messages('cdl_json')) }}
