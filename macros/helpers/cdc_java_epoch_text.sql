{#- An epoch count that Java's java.util.Date wrote (DataX, DataWorks, DataHub): `units`
    (a SQL integer) of 1/`per_second` seconds since 1970-01-01T00:00Z, as text of `kind`:
    'instant' (yyyy-MM-ddTHH:mm:ss[.f]Z), 'local' (the same without a zone) or 'date'
    (yyyy-MM-dd). Java's calendar is Julian before 1582-10-15, so a count before then is
    read back in the Julian calendar (as Spark's LEGACY rebase mode does): the 1000-01-01
    a database held stays 1000-01-01, not the proleptic Gregorian 1000-01-06. The
    fraction keeps its significant digits. -#}
{% macro cdc_java_epoch_text(units, per_second, kind) -%}
    {#- Each intermediate is bound once by a one-element transform (Spark has no LET): the
        Julian date refers to its steps several times, and pasted in place they made the
        expression hundreds of nodes, which Spark analyses, optimises and compiles. -#}
    {%- set gregorian = 'timestamp_micros(epoch_units * ' ~ (1000000 // per_second) ~ ')' -%}
    element_at(transform(array(cast({{ units }} as bigint)), epoch_units -> case
        when epoch_units is null then null
        when epoch_units >= {{ -12219292800 * per_second }} then
        {%- if kind == 'instant' %}
            {{ cdc_iso_instant(gregorian) }}
        {%- elif kind == 'local' %}
            regexp_replace(date_format({{ gregorian }}, "yyyy-MM-dd'T'HH:mm:ss.SSSSSS"), '\\.?0+$', '')
        {%- else %}
            cast(to_date({{ gregorian }}) as string)
        {%- endif %}
        else element_at(transform(
            array(cast(floor(epoch_units / {{ per_second * 86400 }}) as bigint)),
            epoch_days -> element_at(transform(
                -- the Julian calendar date of a Julian day number (Richards' algorithm)
                array(epoch_days + 2440588 + 32082),
                jd_c -> element_at(transform(array((4 * jd_c + 3) div 1461), jd_d -> element_at(transform(
                    array(jd_c - (1461 * jd_d) div 4),
                    jd_e -> element_at(transform(array((5 * jd_e + 2) div 153), jd_m -> concat(
                        lpad(cast(jd_d - 4800 + jd_m div 10 as string), 4, '0'), '-',
                        lpad(cast(jd_m + 3 - 12 * (jd_m div 10) as string), 2, '0'), '-',
                        lpad(cast(jd_e - (153 * jd_m + 2) div 5 + 1 as string), 2, '0')
                        {%- if kind != 'date' %},
                        'T', regexp_replace(date_format(timestamp_micros(
                            (epoch_units - epoch_days * {{ per_second * 86400 }}) * {{ 1000000 // per_second }}
                        ), 'HH:mm:ss.SSSSSS'), '\\.?0+$', '')
                        {%- if kind == 'instant' %}, 'Z'{% endif %}
                        {%- endif %}
                    )), 1)
                ), 1)), 1)
            ), 1)
        ), 1)
    end), 1)
{%- endmacro %}
