{{ decode_shareplex_json() }}
