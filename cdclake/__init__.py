"""cdc-lakehouse: decode database change streams from Kafka into lakehouse tables."""

__version__ = "0.1.0"
