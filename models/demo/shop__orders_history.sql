{{ cdc_table_history('shop.orders') }}
