{{ decode_dataworks_json(cdc_format_messages('dataworks_json')) }}
