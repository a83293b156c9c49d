"""Fixture lab for `doctor`: real torch.distributed (gloo, CPU) runs with injected faults.

Every fixture under ``fixtures/incidents/`` is the real stdout/stderr of real
processes started by :mod:`lab.run`; nothing is mocked or written by hand.
"""
