{{ decode_datahub_tuple() }}
