{{ cdc_table('dts_shop.orders') }}
