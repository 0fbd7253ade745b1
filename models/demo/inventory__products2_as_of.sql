{{ cdc_table_as_of('inventory.products2', "timestamp'2020-05-13 12:39:00'") }}
