"""The Benchmark window: the pairs of a benchmark.yaml and its Table 5 (docs/benchmark.md)."""
