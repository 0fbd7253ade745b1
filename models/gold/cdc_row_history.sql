{{
    config(
        materialized='incremental',
        incremental_strategy='merge',
        cdc_replace_keys=['table_id', 'row_key'],
        cdc_replace_only_where='is_current',
        tblproperties={'delta.enableDeletionVectors': 'true'},
        post_hook='drop table if exists {{ cdc_history_touched_keys_table() }}',
    )
}}

{#-
    SCD type 2 of every source row, folded from silver.cdc_changes in change order
    (macro cdc_position). Each change becomes key events:

    keyed tables:   INSERT/SNAPSHOT -> upsert(after); DELETE -> delete;
                    UPDATE -> upsert(after), or merge(after) when the after image is partial;
                    an UPDATE that changes the key -> delete(old key) + upsert(new key)
    unkeyed tables (multiset, the row is its own key):
                    INSERT/SNAPSHOT -> +1; DELETE -> -1; UPDATE -> -1 before, +1 after
    TRUNCATE:       a truncate event for every key of the table seen before it
    document stores: an UPDATE whose partial after image comes with update operators
                    (cdc_changes.update_operators) -> patch; the documents of
                    keys that got a patch fold in Python (UDF cdc_fold_documents, which
                    applies $set / $unset / dotted paths / $inc ... the way MongoDB does),
                    the others in SQL like every other key

    Ties: changes with the same sort_key in different partitions have no known order
    (Canal and DRS hash rows to partitions by key, so an UPDATE moving key k away sits in
    the new key's partition). Where such a tie holds a creation of k (INSERT, or an
    UPDATE moving a row onto k) and a move of k away, k's state orders them: a creation
    onto a present k came after the move, a move of an absent k came after the creation.
    A row of a table without a key has an identity without NULL columns and without the
    columns the table no longer has (dropped by DDL, missing from the column types of its
    latest messages, or, in a format without types, missing from a whole row image after
    the last change that showed them).

    Incremental runs fold only the keys that new changes touch. A key whose new changes
    all sort after its current version folds them onto that version; a key with a late
    or tied change, an update-operator patch, or in a table that got a new TRUNCATE or
    dropped columns is folded again from all its changes (every key of a table that got
    a new TRUNCATE is), so changes that arrive late or out of order across partitions
    land in their true place. One MERGE (macro spark__get_merge_sql, configs
    cdc_replace_keys and cdc_replace_only_where) replaces every version of a refolded key
    and the current version of a key folded onto it (its validity ends) with the new
    versions; no other row is written.

    Built in five parts, each a macro in macros/gold/: cdc_history_changes (the changes
    to fold), cdc_history_key_events (changes as key events), cdc_history_touched_keys
    (incrementally, the keys to fold and how), cdc_history_per_key (each key's events in
    order), cdc_history_fold (events folded into versions); this model keeps what the
    build writes.
-#}

{#- The highest landing batch of silver.cdc_changes, which every version written records:
    at or below this model's mark, nothing is new -#}
{%- set changes_mark = cdc_high_water_mark(ref('cdc_changes')) %}

{% if is_incremental() and changes_mark <= cdc_high_water_mark(this, 'built_through_batch_id') %}

select *, false as is_replaced_key from {{ this }} where false

{% else %}

with

{{ cdc_history_changes() }},

{{ cdc_history_key_events() }},

{% if is_incremental() %}
{{ cdc_history_touched_keys() }},
{% endif %}

{#- Whether some key folds again from all its changes, asked once, after
    cdc_history_touched_keys made its selection. Python folds documents only when some
    change it folds is an update-operator patch. When no key folds again, none is: a key
    with a new patch folds again (cdc_history_touched_keys), and the others fold only
    their new changes onto their current version. In a full build, or when some key folds
    again, any change of cdc_changes may be one -#}
{%- set some_key_refolds = is_incremental() and cdc_history_some_key_refolds() %}
{%- set only_new = is_incremental() and not some_key_refolds %}
{%- set fold_documents = execute and not only_new and (run_query(
    'select 1 from ' ~ ref('cdc_changes') ~ ' where after_is_partial and update_operators is not null limit 1'
).rows | length > 0) %}

{{ cdc_history_per_key(some_key_refolds) }},

{{ cdc_history_fold(fold_documents) }},

versions_built as (
    select
        {{ cdc_history_columns() | join(', ') }},
        cast({{ changes_mark }} as bigint) as built_through_batch_id
    from versions
),

{% if is_incremental() %}
final as (
    select
        *,
        false as is_replaced_key
    from versions_built
    union all
    -- the versions the MERGE replaces: all of a refolded key (some end with no version:
    -- the old identity of a keyless row that a dropped column renamed), the current one
    -- of a key folded onto it
    select
        {% for column in cdc_history_columns() + ['built_through_batch_id'] -%}
        {{ 'touched_keys.' ~ column if column in ('table_id', 'row_key', 'is_current') else 'null' }} as {{ column }},
        {% endfor -%}
        true as is_replaced_key
    from touched_keys
)
{% else %}
final as (
    select * from versions_built
)
{% endif %}

select * from final

{% endif %}
