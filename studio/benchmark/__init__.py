"""A benchmark: many projects and many model-harness systems, and per (system, project) pair the
outcome reported (studio/benchmark/model.py: the `benchmark.yaml` file; loader.py: read and checked
with located problems; status.py: where each pair stands)."""
