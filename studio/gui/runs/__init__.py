"""The runs feature: trial runs in Docker started and followed from the window, and the checkpoint browser."""
