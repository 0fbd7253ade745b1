{#- An epoch count `x` (seconds 's', milliseconds 'ms' or microseconds 'us' since
    1970-01-01T00:00Z; any SQL type, text too) as a TIMESTAMP; NULL when it is no integer
    or outside 0001-01-01 .. 9999-12-31, where Spark's timestamp_* functions would fail
    the whole query (DATETIME_OVERFLOW) instead of the one record. -#}
{% macro cdc_epoch_timestamp(x, unit='ms') -%}
    {%- set per_second = {'s': 1, 'ms': 1000, 'us': 1000000}[unit] -%}
    {%- set function = {'s': 'timestamp_seconds', 'ms': 'timestamp_millis', 'us': 'timestamp_micros'}[unit] -%}
    element_at(transform(array(try_cast({{ x }} as bigint)), n -> case
        when n between {{ -62135596800 * per_second }} and {{ 253402300800 * per_second - 1 }} then {{ function }}(n)
    end), 1)
{%- endmacro %}

{#- The reject reason of an epoch count `x` (of `unit`, as cdc_epoch_timestamp) that is
    present but no time between the years 0001 and 9999; NULL when it is one or absent.
    `field` names it in the reason. -#}
{% macro cdc_epoch_reject(x, unit, field) -%}
    case when {{ x }} is not null and {{ cdc_epoch_timestamp(x, unit) }} is null then
        {{ cdc_sql_string(field ~ ' ') }} || cast({{ x }} as string)
        || {{ cdc_sql_string(' is not a time in ' ~ {'s': 'seconds', 'ms': 'milliseconds', 'us': 'microseconds'}[unit] ~ ' since 1970 between the years 0001 and 9999') }}
    end
{%- endmacro %}
