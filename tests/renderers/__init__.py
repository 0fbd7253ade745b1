"""Render a generated stream (synth.Stream) as the Kafka records of one vendor
format, one module per format family, for tests and benchmarks."""
