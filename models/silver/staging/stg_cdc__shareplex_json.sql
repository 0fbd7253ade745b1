{{ decode_shareplex_json(cdc_format_messages('shareplex_json')) }}
