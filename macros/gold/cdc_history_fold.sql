{#- Part 5 of gold.cdc_row_history: the fold. Each key's events in change order
    (`per_key` of cdc_history_per_key, starting from its `seed` when it has one; document
    keys with a patch folded by the UDF cdc_fold_documents first, `documents_folded`, when
    `fold_documents`) become one version per event (`folded`: presence, row image, row
    count), then the versions with their validity (`versions`). A key whose events are all
    whole-row upserts and deletes, none moving the key away and no delete right after a
    delete (`is_simple`), carries no state from one event to the next: its versions are
    its seed, if it has one, then one per event (an upsert sets the row, a delete ends the
    key's presence and keeps the row of the version before it, an upsert or the seed,
    in `versions`). Any
    other key is folded in SQL, event by event (`aggregate`; ties across partitions
    resolved by the key's state); it would give simple keys the same versions, at a
    higher cost. -#}
{% macro cdc_history_fold(fold_documents) -%}
{%- set versions_type -%}
array<struct<
    position: struct<sort_key: array<decimal(38, 0)>, kafka_partition: int, kafka_offset: bigint,
                     row_index: int, sub_index: int>, kind: string,
    op: string, event_ts: timestamp, change_id: string, landing_batch_id: bigint,
    was_present: boolean, present: boolean, row: map<string, string>, row_count: bigint>>
{%- endset %}
{#- the versions a key's fold starts from: its seed (incremental builds: the current
    version it is folded onto, visible, so was_present), else none -#}
{%- set seed_versions -%}
{%- if is_incremental() -%}
case when seed is null then cast(array() as {{ versions_type }}) else cast(array(named_struct(
                'position', seed.position, 'kind', 'other', 'op', seed.op, 'event_ts', seed.event_ts,
                'change_id', seed.change_id, 'landing_batch_id', seed.landing_batch_id, 'was_present', true,
                'present', seed.present, 'row', seed.row, 'row_count', seed.row_count
            )) as {{ versions_type }}) end
{%- else -%}
cast(array() as {{ versions_type }})
{%- endif -%}
{%- endset %}
-- lambda arguments and struct fields aligned by hand -- noqa: disable=LT02
{% if fold_documents %}
documents_folded as ( -- used through `fold_documents` in folded below -- noqa: ST03
    -- a key with a patch: every event becomes an upsert of the document Python folded for
    -- it, or a delete when none is left (a patch never leaves none)
    select
        table_id,
        row_key,
        is_keyed,
        {% if is_incremental() -%}
        seed,
        {% endif -%}
        case when has_patch then
            zip_with(events, from_json(document_rows, 'array<map<string, string>>'), (e, doc) -> struct(
                e.position,
                case when e.action in ('upsert', 'merge', 'patch') then
                    case when doc is null then 'delete' else 'upsert' end
                else e.action end as action,
                doc as image,
                e.delta, e.kind, e.op, e.event_ts, e.change_id, e.landing_batch_id, e.document
            ))
        else events end as events
    from (
        select
            *,
            cdc_fold_documents(case when has_patch then
                to_json(transform(events, e -> named_struct('action', e.action, 'document', e.document,
                                                            'image', e.image)))
            end) as document_rows
        from (select *, exists(events, e -> e.action = 'patch') as has_patch from per_key) as flagged
    ) as with_document_rows
),
{% endif %}

fold_input as (
    select
        *,
        forall(events, e -> e.action in ('upsert', 'delete') and e.kind != 'move_away')
        and not exists(
            transform(events, (e, i) -> i > 0 and e.action = 'delete' and get(events, i - 1).action = 'delete'),
            after_delete -> after_delete
        ) as is_simple
    from {{ 'documents_folded' if fold_documents else 'per_key' }}
),

folded as (
    select
        table_id,
        row_key,
        is_keyed,
        is_simple,
        case when is_simple then cast({% if is_incremental() %}concat({{ seed_versions }}, {% endif -%}
        transform(events, e -> named_struct(
            'position', e.position, 'kind', e.kind, 'op', e.op, 'event_ts', e.event_ts, 'change_id', e.change_id,
            'landing_batch_id', e.landing_batch_id,
            'was_present', cast(null as boolean),  -- read for TRUNCATE versions only, which a simple key has not
            'present', e.action = 'upsert',
            'row', e.image,  -- a delete's is NULL: versions fills in the last upsert's
            'row_count', cast(case when e.action = 'upsert' then 1 else 0 end as bigint)
        )){% if is_incremental() %}){% endif %} as {{ versions_type }}) else aggregate(
            events,
            {{ seed_versions }},
            -- noqa: enable=LT02
            -- Changes that tie on sort_key but sit in different partitions have no known
            -- order (a vendor partitioning by key puts a key moved away by an UPDATE in the
            -- new key's partition). Where a key is created (INSERT, or an UPDATE moving a
            -- row onto it) and moved away within such a tie, the state decides: a creation
            -- onto a key that is there must come after the move (`skip` the move that
            -- follows it), a move of a key that is not there must come after the creation
            -- (`undo` the creation that follows it).
            (acc, e) -> concat(acc, array(element_at(transform(
                array(named_struct(
                    'present', coalesce(element_at(acc, -1).present, false),
                    'row', element_at(acc, -1).row,
                    'row_count', coalesce(element_at(acc, -1).row_count, cast(0 as bigint)),
                    'skip', coalesce(
                        element_at(acc, -1).position.sort_key = e.position.sort_key
                        and element_at(acc, -1).position.kafka_partition != e.position.kafka_partition
                        and e.kind = 'move_away' and element_at(acc, -1).kind = 'create'
                        and element_at(acc, -1).was_present,
                        false
                    ),
                    'undo', coalesce(
                        element_at(acc, -1).position.sort_key = e.position.sort_key
                        and element_at(acc, -1).position.kafka_partition != e.position.kafka_partition
                        and e.kind = 'create' and element_at(acc, -1).kind = 'move_away'
                        and not element_at(acc, -1).was_present,
                        false
                    )
                )),
                prev -> named_struct(
                    'position', e.position,
                    'kind', e.kind,
                    'op', e.op,
                    'event_ts', e.event_ts,
                    'change_id', e.change_id,
                    'landing_batch_id', e.landing_batch_id,
                    'was_present', prev.present,
                    'present', case
                        when prev.skip then prev.present
                        when prev.undo then false
                        when e.action in ('upsert', 'merge') then true
                        when e.action in ('delete', 'truncate') then false
                        else prev.row_count + e.delta > 0
                    end,
                    'row', case
                        when prev.skip then prev.row
                        when e.action = 'upsert' then e.image
                        when e.action = 'merge' then {{ cdc_overlay('prev.row', 'e.image') }}
                        when e.action = 'count' then coalesce(e.image, prev.row)
                        else prev.row
                    end,
                    'row_count', case
                        when prev.skip then prev.row_count
                        when prev.undo then cast(0 as bigint)
                        when e.action in ('upsert', 'merge') then cast(1 as bigint)
                        when e.action in ('delete', 'truncate') then cast(0 as bigint)
                        else greatest(prev.row_count + e.delta, cast(0 as bigint))
                    end
                )
            ), 1)))
        ) end as versions
    from fold_input
),

visible as (
    -- a truncate event only closes a row that exists at that moment
    select
        table_id,
        row_key,
        is_keyed,
        is_simple,
        filter(versions, v -> not (v.op = 'TRUNCATE' and not v.was_present)) as versions
    from folded
),

versions as (
    -- each version with its validity, ended by the next one (a key's versions are in
    -- change order in its array: no sort of all versions). A delete of a simple key keeps
    -- the row of the version before it: an upsert, or the seed (is_simple has no delete
    -- right after a delete); a seed that is a delete holds the row of the upsert before it
    select
        table_id,
        row_key,
        case when is_simple and not (version.present or coalesce(version.was_present, false))
            then version.previous_row
            else version.row
        end as row,
        version.row_count as row_count,
        version.op as op,
        version.event_ts as valid_from,
        version.valid_to,
        version.is_current,
        not version.present as is_deleted,
        is_keyed,
        version.position.sort_key as sort_key,
        version.position.kafka_partition as kafka_partition,
        version.position.kafka_offset as kafka_offset,
        version.position.row_index as row_index,
        version.change_id as change_id,
        version.landing_batch_id as landing_batch_id
    from visible
        lateral view explode(transform(versions, (v, i) -> named_struct(
            'position', v.position, 'op', v.op, 'event_ts', v.event_ts, 'change_id', v.change_id,
            'landing_batch_id', v.landing_batch_id, 'was_present', v.was_present, 'present', v.present,
            'row', v.row, 'row_count', v.row_count,
            'previous_row', get(versions, i - 1).row,
            'valid_to', get(versions, i + 1).event_ts,
            'is_current', i = size(versions) - 1
        ))) v as version
)
{%- endmacro %}
