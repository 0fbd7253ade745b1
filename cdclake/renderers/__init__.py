"""Render a generated stream (cdclake.synth.Stream) as the Kafka records of one vendor
format, one module per format family, for tests and benchmarks."""
