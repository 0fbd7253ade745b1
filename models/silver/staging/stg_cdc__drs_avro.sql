{{ decode_drs_avro() }}
