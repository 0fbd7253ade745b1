{{
    config(
        materialized='incremental',
        incremental_strategy='append',
    )
}}

{#- DDL statements with their parse (UDF cdc_parse_ddl, sqlglot). A table, not a view:
    a model that calls a session UDF must be materialized. -#}

{% if cdc_nothing_new(ref('int_cdc__decoded'), where="record_kind = 'ddl'") %}

select * from {{ this }} where false

{% else %}

with

decoded as (
    select * from {{ ref('int_cdc__decoded') }}
    where record_kind = 'ddl'
        {% if is_incremental() %}
        and landing_batch_id > {{ cdc_high_water_mark(this) }}
        {% endif %}
),

parsed as (
    select
        *,
        from_json(
            cdc_parse_ddl(ddl_text, ddl_dialect),
            'action string, object_kind string, dialect string, statements int,
             table struct<db: string, name: string>, renamed_to string,
             columns array<struct<name: string, type: string, change: string,
                 new_name: string, position: int>>,
             error string'
        ) as ddl
    from decoded
),

final as (
    select
        message_id,
        vendor_format,
        topic,
        kafka_partition,
        kafka_offset,
        kafka_ts,
        source_db,
        source_schema,
        source_table,
        coalesce(
            table_id,
            {{ cdc_table_id('ddl.table.db', 'null', 'ddl.table.name') }}
        ) as table_id,
        vendor_op,
        ddl_text,
        ddl_dialect,
        ddl.action as ddl_action,
        ddl.object_kind as ddl_object_kind,
        ddl.table.db as ddl_table_db,
        ddl.table.name as ddl_table_name,
        ddl.columns as ddl_columns,
        ddl.renamed_to as ddl_renamed_to,
        ddl.error as ddl_parse_error,
        ddl.dialect as ddl_parse_dialect,
        ddl.statements as ddl_statement_count,
        -- the vendor's structured description of the DDL, as JSON (DataWorks ddlMeta)
        ddl_meta,
        event_ts,
        capture_ts,
        sort_key,
        tx_id,
        landing_batch_id,
        source_file,
        source_line
    from parsed
)

select * from final

{% endif %}
