{{ decode_dts_avro(cdc_format_messages('dts_avro')) }}
