{{ cdc_table('paimon_sync_table.all_types_table') }}
