{#- Maps vendor types to Spark types: selects every row of `relation` (which has columns
    type_system and vendor_type) with four more: spark_type, type_key (the seed row that
    decided, `system:name`; NULL when none did), is_null_value (the type only says the value
    was NULL: DTS EmptyObject, DataHub VOID, BSON null) and type_note.

    UDF cdc_type_keys gives each type its lookup keys, most specific first (sqlglot reads
    SQL types in their dialect); the first key found in the seed cdc_type_map wins. A seed
    spark_type of `decimal` takes the type's own precision and scale (else the seed's
    defaults); without a precision, or over 38 digits, the column stays text so that no
    digit is lost. A type no seed row knows becomes string and says so in type_note (and
    in the warning of the test cdc_unknown_vendor_types). The UDF runs once per distinct
    type. -#}
{% macro cdc_resolve_types(relation) -%}
with

types as (
    select distinct type_system, vendor_type from {{ relation }}
),

keyed as (
    select
        type_system,
        vendor_type,
        cdc_type_keys(type_system, vendor_type) as parts
    from types
),

candidates as (
    -- every lookup key of a type (a type without keys keeps one row with none)
    select
        keyed.type_system,
        keyed.vendor_type,
        keyed.parts,
        candidate.pos,
        candidate.type_key
    from keyed
    lateral view outer posexplode(keyed.parts.keys) candidate as pos, type_key
),

resolved as (
    -- the first key the seed has, else the type's first row
    select
        candidates.type_system,
        candidates.vendor_type,
        case when type_map.spark_type is not null then candidates.type_key end as type_key,
        coalesce(candidates.parts.is_null_value, false) as is_null_value,
        -- bigint: the UDF holds them to int32, and p - s must not overflow
        cast(coalesce(candidates.parts.precision, type_map.default_precision) as bigint) as type_precision,
        cast(coalesce(candidates.parts.scale, type_map.default_scale, 0) as bigint) as type_scale,
        type_map.spark_type as mapped_type
    from candidates
    left join {{ ref('cdc_type_map') }} as type_map
        on candidates.type_key = lower(concat(type_map.type_system, ':', type_map.vendor_type))
    qualify row_number() over (
        partition by candidates.type_system, candidates.vendor_type
        order by type_map.spark_type is null, candidates.pos
    ) = 1
),

final as (
    select
        *,
        case
            when mapped_type is null then 'string'
            when mapped_type != 'decimal' then mapped_type
            when type_precision is null or type_precision < 1 or type_scale > type_precision then 'string'
            -- a negative scale (Oracle NUMBER(p, -s)) rounds to 10^s: integers of p + s digits
            when type_scale < 0 and type_precision - type_scale <= 38
                then concat('decimal(', type_precision - type_scale, ',0)')
            when type_precision > 38 or type_scale < 0 then 'string'
            else concat('decimal(', type_precision, ',', type_scale, ')')
        end as spark_type,
        case
            when vendor_type is null then 'no type reported: text'
            when mapped_type is null then 'unknown type: text (add it to seeds/cdc_type_map.csv)'
            when mapped_type != 'decimal' then null
            when type_precision is null then 'no precision: exact text'
            when type_precision < 1 or type_scale > type_precision then 'precision and scale make no decimal: exact text'
            when type_precision - least(type_scale, 0) > 38 then 'over 38 digits: exact text'
        end as type_note
    from resolved
)

select
    source.*,
    final.spark_type,
    final.type_key,
    final.is_null_value,
    final.type_note
from {{ relation }} as source
left join final
    on source.type_system <=> final.type_system and source.vendor_type <=> final.vendor_type
{%- endmacro %}
