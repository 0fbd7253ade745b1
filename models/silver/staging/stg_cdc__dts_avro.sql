{{ decode_dts_avro() }}
