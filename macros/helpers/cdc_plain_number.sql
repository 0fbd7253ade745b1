{#- Number text in scientific notation ("1.2510357E7", "-5E-3") as plain digits
    ("12510357", "-0.005"), exactly, by moving the decimal point in the text.
    Text without an exponent is returned as it is. `x` is evaluated once (bound by a
    one-element transform: a caller may pass a regexp over a whole message). -#}
{% macro cdc_plain_number(x) -%}
    element_at(transform(array({{ x }}), number_text -> case
        when number_text rlike {{ cdc_scientific_notation() }} then
        element_at(transform(
            array(named_struct(
                'sign', case when number_text like '-%' then '-' else '' end,
                'int_part', regexp_extract(number_text, '^[+-]?([0-9]*)', 1),
                'frac_part', regexp_extract(number_text, '^[+-]?[0-9]*[.]?([0-9]*)[eE]', 1),
                'exponent', cast(regexp_extract(number_text, '[eE]([+-]?[0-9]+)$', 1) as int)
            )),
            n -> element_at(transform(
                array(named_struct(
                    'digits', concat(n.int_part, n.frac_part),
                    'point', length(n.int_part) + n.exponent,
                    'sign', n.sign
                )),
                d -> element_at(transform(
                    array(case
                        when d.point <= 0 then concat('0.', repeat('0', -d.point), d.digits)
                        when d.point >= length(d.digits) then concat(d.digits, repeat('0', d.point - length(d.digits)))
                        else concat(substr(d.digits, 1, d.point), '.', substr(d.digits, d.point + 1))
                    end),
                    r -> concat(
                        case when regexp_replace(r, '[0.]', '') = '' then '' else d.sign end,
                        regexp_replace(
                            case when r like '%.%' then regexp_replace(r, '[.]?0+$', '') else r end,
                            '^0+(?=[0-9])', ''
                        )
                    )
                ), 1)
            ), 1)
        ), 1)
    else number_text end), 1)
{%- endmacro %}
