{#- The reject reason of an epoch count `x` (of `unit`, as cdc_epoch_timestamp) that is
    present but no time between the years 0001 and 9999; NULL when it is one or absent.
    `field` names it in the reason. -#}
{% macro cdc_epoch_reject(x, unit, field) -%}
    case when {{ x }} is not null and {{ cdc_epoch_timestamp(x, unit) }} is null then
        {{ cdc_sql_string(field ~ ' ') }} || cast({{ x }} as string)
        || {{ cdc_sql_string(' is not a time in ' ~ {'s': 'seconds', 'ms': 'milliseconds', 'us': 'microseconds'}[unit] ~ ' since 1970 between the years 0001 and 9999') }}
    end
{%- endmacro %}
