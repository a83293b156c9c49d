"""Reading CUDA memory snapshots: classifying allocations by their stack frames, replaying the allocator trace."""
