"""Helpers for reading profiler traces: event classes, microsecond bitsets, the streaming reader, cross-rank skew."""
