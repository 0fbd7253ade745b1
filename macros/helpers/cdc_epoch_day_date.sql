{#- A count of days since 1970-01-01 (Kafka Connect Date, io.debezium.time.Date) as an
    ISO date, over the whole range of a SQL DATE (0001-01-01 = -719162 through
    9999-12-31 = 2932896, also before 1970); NULL outside it or when `x` is no integer. -#}
{% macro cdc_epoch_day_date(x) -%}
    case when try_cast({{ x }} as bigint) between -719162 and 2932896 then
        cast(date_add(date'1970-01-01', cast({{ x }} as int)) as string)
    end
{%- endmacro %}
