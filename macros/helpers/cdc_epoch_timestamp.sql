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
