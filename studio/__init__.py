"""DeliverBench Studio: build, review, run and judge multi-stage professional benchmarks."""

__version__ = "0.1.0"
