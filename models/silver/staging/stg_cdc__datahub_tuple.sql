{{ decode_datahub_tuple(cdc_format_messages('datahub_tuple')) }}
