{{ decode_drs_avro(cdc_format_messages('drs_avro')) }}
