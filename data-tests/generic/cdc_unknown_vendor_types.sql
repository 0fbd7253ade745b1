{#- Warns about vendor types that seeds/cdc_type_map.csv does not map: their columns are
    typed as text. Add a row to the seed and rebuild (see cdc_table_columns). -#}
{% test cdc_unknown_vendor_types(model) %}

select distinct type_system, vendor_type
from {{ model }}
where vendor_type is not null and type_key is null

{% endtest %}
