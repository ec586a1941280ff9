"""The judging feature: side-by-side review, adjudication, scores and the agreement dashboard over the verdict store."""
