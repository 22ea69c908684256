"""The job kernel: what every long job shares (run rows, chunks, fan-out, recovery)."""
