{{
    config(
        materialized='incremental',
        incremental_strategy='insert_overwrite',
        partition_by=['table_hash'],
        post_hook="{{ cdc_delete_emptied_tables(this, ref('cdc_row_history')) }}",
    )
}}

{#- The live rows of every source table: the current, not deleted version of each key
    in gold.cdc_row_history. Incremental runs rewrite the partitions (table_hash) of the
    tables whose history was rebuilt; a table left without rows loses its partition in
    the post-hook (an overwrite with no rows would leave the old ones in place). -#}

{% if cdc_nothing_new(ref('cdc_row_history'), column='built_through_batch_id', mark_column='built_through_batch_id') %}

select * from {{ this }} where false

{% else %}

with

history as (
    select * from {{ ref('cdc_row_history') }}
    {% if is_incremental() %}
    where built_through_batch_id > {{ cdc_high_water_mark(this, 'built_through_batch_id') }}
    {% endif %}
),

final as (
    select
        row_key,
        row,
        row_count,
        op as last_op,
        sort_key,
        kafka_partition,
        kafka_offset,
        row_index,
        valid_from as last_event_ts,
        change_id as last_change_id,
        landing_batch_id as last_landing_batch_id,
        built_through_batch_id,
        table_id,
        table_hash
    from history
    where is_current and not is_deleted
)

select * from final

{% endif %}
