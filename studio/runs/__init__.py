"""Trial runs in Docker along the project timeline: plan, runner, checkpoint store, harnesses."""
