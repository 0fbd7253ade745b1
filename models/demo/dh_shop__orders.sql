{{ cdc_table('dh_shop.orders') }}
