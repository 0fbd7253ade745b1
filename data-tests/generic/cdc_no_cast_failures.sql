{#- Warns about current values that do not fit their column's type: the typed models show
    them as NULL. gold.cdc_cast_failures has the figures and an example of each. -#}
{% test cdc_no_cast_failures(model) %}

select table_id, column_name, table_type, cast_failures, example_value
from {{ model }}
where cast_failures > 0

{% endtest %}
