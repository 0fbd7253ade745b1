{{ decode_dataworks_json() }}
