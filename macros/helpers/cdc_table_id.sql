{#- Table id of a source table: its named parts (database, schema, table; blank ones
    dropped, names trimmed) joined by dots; NULL when no part is left. Distinct source
    tables keep distinct ids:

    - a part written in one case (`ORDERS`, `orders`: how an unquoted identifier folds,
      upper-case in Oracle and DB2, lower-case in PostgreSQL) is lower-case;
    - a part in mixed case (`Users`: a quoted identifier, a MongoDB collection, a MySQL
      table on a case-sensitive file system) keeps its case, so `Users` and `users` stay
      two tables;
    - a part that holds a dot or a backtick is quoted with backticks (backticks doubled),
      so database `a` + table `b.c` (a.`b.c`) and database `a.b` + table `c` (`a.b`.c)
      stay two tables.

    Only `USERS` and `users` in one database, both written in one case, share an id. -#}
{% macro cdc_table_id(db, schema, table) -%}
    nullif(concat_ws('.', transform(
        transform(
            filter(array(trim({{ db }}), trim({{ schema }}), trim({{ table }})), part -> part is not null and part != ''),
            part -> case when part = upper(part) then lower(part) else part end
        ),
        name -> case when name rlike '[.`]' then concat('`', replace(name, '`', '``'), '`') else name end
    )), '')
{%- endmacro %}
