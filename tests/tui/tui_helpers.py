"""Helpers for the TUI tests: the demo incident, a store-timeout incident aimed at a real local TCP server."""
from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterator

import pytest

REPO = Path(__file__).resolve().parents[2]
DEMO = "fixtures/format-examples/tui-demo"
SIZE = (120, 40)

# a worker's log and its environment dump, in torch 2.x c10d wording; PORT is filled in per test
STORE_TIMEOUT_LOG = """\
[W socket.cpp:663] [c10d] The client socket has timed out after 900000ms while trying to connect to (127.0.0.1, PORT).
Traceback (most recent call last):
  File "/workspace/train.py", line 20, in <module>
    dist.init_process_group("nccl")
torch.distributed.DistNetworkError: The client socket has timed out after 900000ms while trying to connect to (127.0.0.1, PORT).
"""
ENV_DUMP = "MASTER_ADDR=127.0.0.1\nMASTER_PORT=PORT\nNCCL_P2P_DISABLE=1\n"


def run(test: Callable[[], Awaitable[Any]]) -> Any:
    """Run an async Pilot test body (no pytest-asyncio needed)."""
    return asyncio.run(test())


async def settle(pilot) -> None:
    """Wait until every worker (gathering, diagnosis, checks) is done and the screen has caught up."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run from the repository root so input paths (and snapshots) read `fixtures/...`."""
    monkeypatch.chdir(REPO)
    return REPO


@pytest.fixture
def store_server() -> Iterator[socket.socket]:
    """A real TCP listener on 127.0.0.1 standing in for the rendezvous store."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    yield server
    server.close()


@pytest.fixture
def store_incident(tmp_path: Path, store_server: socket.socket) -> Path:
    port = str(store_server.getsockname()[1])
    (tmp_path / "rank1.log").write_text(STORE_TIMEOUT_LOG.replace("PORT", port))
    (tmp_path / "env.txt").write_text(ENV_DUMP.replace("PORT", port))
    return tmp_path
