{{ cdc_table('shop.orders') }}
