{#- An epoch count that Java's java.util.Date wrote (DataX, DataWorks, DataHub): `units`
    (a SQL integer) of 1/`per_second` seconds since 1970-01-01T00:00Z, as text of `kind`:
    'instant' (yyyy-MM-ddTHH:mm:ss[.f]Z), 'local' (the same without a zone) or 'date'
    (yyyy-MM-dd). Java's calendar is Julian before 1582-10-15, so a count before then is
    read back in the Julian calendar (as Spark's LEGACY rebase mode does): the 1000-01-01
    a database held stays 1000-01-01, not the proleptic Gregorian 1000-01-06. The
    fraction keeps its significant digits. -#}
{% macro cdc_java_epoch_text(units, per_second, kind) -%}
    {%- set u = 'cast(' ~ units ~ ' as bigint)' -%}
    {%- set per_day = per_second * 86400 -%}
    {%- set days = 'cast(floor(' ~ u ~ ' / ' ~ per_day ~ ') as bigint)' -%}
    {%- set micros_of_day = '((' ~ u ~ ' - ' ~ days ~ ' * ' ~ per_day ~ ') * ' ~ (1000000 // per_second) ~ ')' -%}
    {#- Julian calendar date of a Julian day number (Richards' algorithm) -#}
    {%- set c = '(' ~ days ~ ' + 2440588 + 32082)' -%}
    {%- set d = '((4 * ' ~ c ~ ' + 3) div 1461)' -%}
    {%- set e = '(' ~ c ~ ' - (1461 * ' ~ d ~ ') div 4)' -%}
    {%- set m = '((5 * ' ~ e ~ ' + 2) div 153)' -%}
    {%- set julian_date -%}
        concat(
            lpad(cast({{ d }} - 4800 + {{ m }} div 10 as string), 4, '0'), '-',
            lpad(cast({{ m }} + 3 - 12 * ({{ m }} div 10) as string), 2, '0'), '-',
            lpad(cast({{ e }} - (153 * {{ m }} + 2) div 5 + 1 as string), 2, '0')
        )
    {%- endset -%}
    {%- set clock = "regexp_replace(date_format(timestamp_micros(" ~ micros_of_day
        ~ "), 'HH:mm:ss.SSSSSS'), '\\\\.?0+$', '')" -%}
    {%- set gregorian = 'timestamp_micros(' ~ u ~ ' * ' ~ (1000000 // per_second) ~ ')' -%}
    case
        when {{ u }} is null then null
        when {{ u }} >= {{ -12219292800 * per_second }} then
        {%- if kind == 'instant' %}
            {{ cdc_iso_instant(gregorian) }}
        {%- elif kind == 'local' %}
            regexp_replace(date_format({{ gregorian }}, "yyyy-MM-dd'T'HH:mm:ss.SSSSSS"), '\\.?0+$', '')
        {%- else %}
            cast(to_date({{ gregorian }}) as string)
        {%- endif %}
        {%- if kind == 'date' %}
        else {{ julian_date }}
        {%- else %}
        else concat({{ julian_date }}, 'T', {{ clock }}{{ ", 'Z'" if kind == 'instant' }})
        {%- endif %}
    end
{%- endmacro %}
