{#- Exact decimal text of a big-endian two's-complement integer `bin` (binary) scaled by
    `scale` digits: Kafka Connect `Decimal` bytes, Debezium `VariableScaleDecimal.value`.
    Any length (MySQL DECIMAL(65,30) needs 28 bytes, more than decimal(38,0) holds): the
    bytes are folded into base-10^9 limbs (little-endian) by long multiplication, so no
    value ever goes through a double or a fixed-width decimal. A negative number is the
    magnitude of its complement plus one. Trailing fraction zeros are kept (the scale is
    the column's). NULL when `bin` is NULL or empty.
    0x01E240 with scale 3 -> "123.456"; 0xFF85 with scale 1 -> "-12.3". -#}
{% macro cdc_twos_complement_decimal(bin, scale) -%}
    {%- set magnitude_input -%}
        aggregate(
            transform(num.bytes, byte_value -> case when num.negative then 255 - byte_value else byte_value end),
            array(cast(0 as bigint)),
            (limbs, byte_value) -> {{ _cdc_limbs_step('limbs', '256', 'byte_value') }}
        )
    {%- endset -%}
    element_at(transform(
        array(hex({{ bin }})),
        hex_digits -> case when hex_digits is not null and hex_digits != '' then element_at(transform(
            array(named_struct(
                'negative', substr(hex_digits, 1, 1) >= '8',
                'scale', cast({{ scale }} as int),
                'bytes', transform(
                    sequence(0, length(hex_digits) div 2 - 1),
                    byte_no -> cast(conv(substr(hex_digits, 2 * byte_no + 1, 2), 16, 10) as bigint)
                )
            )),
            num -> element_at(transform(
                array({{ _cdc_limbs_step(magnitude_input, '1', 'case when num.negative then 1 else 0 end') }}),
                magnitude_limbs -> element_at(transform(
                    array(concat(
                        cast(element_at(magnitude_limbs, -1) as string),
                        array_join(transform(
                            reverse(slice(magnitude_limbs, 1, size(magnitude_limbs) - 1)),
                            limb -> lpad(cast(limb as string), 9, '0')
                        ), '')
                    )),
                    digits -> element_at(transform(
                        array(lpad(digits, greatest(length(digits), coalesce(num.scale, 0) + 1), '0')),
                        padded -> concat(
                            case when num.negative and digits != '0' then '-' else '' end,
                            case
                                when coalesce(num.scale, 0) = 0 then digits
                                when num.scale < 0 then
                                    case when digits = '0' then digits else concat(digits, repeat('0', -num.scale)) end
                                else concat(
                                    substr(padded, 1, length(padded) - num.scale), '.', right(padded, num.scale)
                                )
                            end
                        )
                    ), 1)
                ), 1)
            ), 1)
        ), 1) end
    ), 1)
{%- endmacro %}

{#- Base-10^9 little-endian limbs `limbs` times `factor` plus `addend` (both below 10^9). -#}
{% macro _cdc_limbs_step(limbs, factor, addend) -%}
    element_at(transform(
        array(aggregate(
            {{ limbs }},
            named_struct('out', cast(array() as array<bigint>), 'carry', cast({{ addend }} as bigint)),
            (limb_state, limb) -> named_struct(
                'out', concat(limb_state.out, array((limb * {{ factor }} + limb_state.carry) % 1000000000)),
                'carry', (limb * {{ factor }} + limb_state.carry) div 1000000000
            )
        )),
        stepped -> case when stepped.carry > 0 then concat(stepped.out, array(stepped.carry)) else stepped.out end
    ), 1)
{%- endmacro %}
