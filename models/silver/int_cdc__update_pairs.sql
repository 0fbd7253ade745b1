{{
    config(
        materialized='incremental',
        incremental_strategy='append',
    )
}}

{#-
    Updates sent as two messages (DataWorks UPDATE_BEFOR + UPDATE_AFTER, Shareplex
    UPDATE BEFORE + UPDATE AFTER): int_cdc__decoded keeps each half (record_kind 'half',
    sharing a pair_key). Once both halves of a pair are in, in one landing batch or
    across several, this model writes them as ONE change: the before half's image and
    key, the after half's image, position and message; landing_batch_id is the later
    half's, so gold takes the change up in the run that completes it. A half whose
    partner has not arrived yet waits; the run that brings the partner pairs it.

    Its own model, reading the stored halves, so that pairing never runs the decoders a
    second time. cdc_changes is the union of these changes and the decoded ones.
-#}

{% if cdc_nothing_new(ref('int_cdc__decoded'), where="record_kind = 'half'") %}

select * from {{ this }} where false

{% else %}

with

waiting_halves as (
    -- every half not yet part of a pair
    select * from {{ ref('int_cdc__decoded') }} as half
    where record_kind = 'half'
    {% if is_incremental() %}
    and not exists (
        select 1 from {{ this }} as paired
        where paired.pair_key = half.pair_key
            and paired.vendor_format = half.vendor_format
            and paired.table_id <=> half.table_id
    )
    {% endif %}
),

pairs as (
    select
        after_half.* except (
            record_kind, op, vendor_op, before, before_is_partial, before_row_key,
            landing_batch_id
        ),
        'change' as record_kind,
        'UPDATE' as op,
        before_half.vendor_op || '+' || after_half.vendor_op as vendor_op,
        before_half.before,
        before_half.before_is_partial,
        before_half.before_row_key,
        greatest(before_half.landing_batch_id, after_half.landing_batch_id) as landing_batch_id,
        row_number() over (
            partition by after_half.vendor_format, after_half.table_id, after_half.pair_key
            order by
                after_half.kafka_partition, after_half.kafka_offset,
                before_half.kafka_partition, before_half.kafka_offset
        ) as pair_rank
    from waiting_halves as after_half
    inner join waiting_halves as before_half
        on after_half.vendor_format = before_half.vendor_format
        and after_half.table_id <=> before_half.table_id
        and after_half.pair_key = before_half.pair_key
    where after_half.after is not null
        and before_half.after is null
),

final as (
    select
        {{ cdc_decoded_contract() | map(attribute='name') | join(', ') }},
        table_id, row_key, before_row_key, change_id, decoded_at
    from pairs
    where pair_rank = 1
)

select * from final

{% endif %}
