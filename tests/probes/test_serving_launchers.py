"""text-generation-inference's launcher reporting a child process killed by a signal (issue 12, held-out batch BI).

Each text is real output (the thread named beside it); each test asserts the fact the probe must read from it, or
that a near-miss wording gives none.
"""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.serving_launchers import ServingLaunchers

DOWNLOAD_SIGBUS = "Error: Download process was signaled to shutdown with signal 7\n"   # text-generation-inference#446
SHARD_SIGABRT = ("2024-10-01T07:43:22.342900Z ERROR shard-manager: text_generation_launcher: Shard process was "
                 "signaled to shutdown with signal 6 rank=0\n")                        # text-generation-inference#2593
SHARD_WAITING = ("2023-08-17T15:28:43.904106Z  INFO shard-manager: text_generation_launcher: Waiting for shard to be "
                 "ready... rank=0\n")                                                  # text-generation-inference#869


def _exits(text: str) -> list:
    return [f for f in parse_lines(ServingLaunchers, text) if f.KIND == "launch.worker_exit"]


def test_a_download_process_killed_by_signal_7_is_a_sigbus_exit() -> None:
    (ex,) = _exits(DOWNLOAD_SIGBUS)
    assert (ex.launcher, ex.code, ex.signal) == ("text-generation-inference", -7, "SIGBUS")


def test_a_shard_killed_by_signal_6_keeps_its_rank_and_is_no_sigbus() -> None:
    (ex,) = _exits(SHARD_SIGABRT)
    assert (ex.code, ex.signal, ex.rank) == (-6, "SIGABRT", 0)


def test_a_shard_still_starting_is_no_exit() -> None:
    assert _exits(SHARD_WAITING) == []
