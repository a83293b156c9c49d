"""The whole job: `doctor cluster` on every rank, facts gathered to rank 0, active tests between nodes."""
