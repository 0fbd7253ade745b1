"""The real-database harness: throw-away MariaDB and PostgreSQL servers, a seeded
workload, the change log they really wrote (binlog, logical decoding), and that log
rendered into every vendor format (see model.py for what passes between the parts)."""
