"""Can this node reach MASTER_ADDR:MASTER_PORT (and any --peer HOST:PORT)? Resolution and a TCP connect per
target, all in parallel with asyncio, each with a short timeout. The live reader writes JSON; the parser
below turns it into net.reachability facts (and net.resolve_error for a name that does not resolve).

Sample input:
    {"doctor": "reachability/1", "timeout_s": 3.0, "targets": [
     {"purpose": "store", "host": "node-0", "port": 29500, "address": "10.0.0.1", "outcome": "timeout", "seconds": 3.0}
    ]}
The outcomes are those of probes/store_port.py (the TUI's single live check): open | refused | timeout |
unreachable | unresolved | error; purpose: store (MASTER_ADDR:MASTER_PORT) | peer.
"""
from __future__ import annotations

import errno
import json
import os
import socket
import time
from typing import Any

from doctor.facts.launch import ResolveError
from doctor.facts.reachability import Reachability
from doctor.probing.contract import DocumentProbe, ParseContext
from doctor.probing.lines import json_object
from doctor.probing.live import NotHere, reader

SCHEMA = "reachability/1"
TIMEOUT_S = 3.0
PARALLEL = 64


class ReachabilityReport(DocumentProbe):
    name = "reachability"
    yields = ("net.reachability", "net.resolve_error")
    live = reader("probes.reachability:read_live")

    @classmethod
    def sniff(cls, head: str) -> bool:
        return f'"doctor": "{SCHEMA}"' in head[:200]

    def parse(self, text: str, ctx: ParseContext) -> None:
        data = json_object(text)
        if data is None:
            return
        lines = text.splitlines()
        for item in data.get("targets", []):
            if not isinstance(item, dict):
                continue
            port = item.get("port") if isinstance(item.get("port"), int) and not isinstance(item.get("port"), bool) else -1
            host, seconds = str(item.get("host", "")), item.get("seconds")
            number = next((i for i, x in enumerate(lines, 1) if f'"host": {json.dumps(host)}' in x), 0)
            line = lines[number - 1] if number else ""
            outcome, purpose = str(item.get("outcome", "error")), str(item.get("purpose", ""))
            ctx.emit(Reachability, number, line, node=ctx.node, rank=-1, host=host, port=port, outcome=outcome,
                     reachable=outcome == "open", purpose=purpose,
                     seconds=float(seconds) if isinstance(seconds, (int, float)) else -1.0)
            if outcome == "unresolved" and purpose == "store":
                ctx.emit(ResolveError, number, line, node=ctx.node, rank=-1, host=host, port=port)


def read_live(args: list[str]) -> str:
    """args: peers as HOST:PORT. MASTER_ADDR/MASTER_PORT from the environment come first."""
    targets: list[tuple[str, str, int]] = []
    if os.environ.get("MASTER_ADDR"):
        port = os.environ.get("MASTER_PORT", "29500")
        targets.append(("store", os.environ["MASTER_ADDR"], int(port) if port.isdigit() else 29500))
    for peer in args:
        host, _, port = peer.rpartition(":")
        if host and port.isdigit():
            targets.append(("peer", host.strip("[]"), int(port)))
    if not targets:
        raise NotHere("MASTER_ADDR is not set and no --peer HOST:PORT was given: no endpoint to check")
    import asyncio   # here: importing it costs every `doctor analyze` 16 ms
    results = asyncio.run(check_all(targets, TIMEOUT_S))
    lines = [f'{{"doctor": "{SCHEMA}", "timeout_s": {TIMEOUT_S}, "targets": [']
    lines += [" " + json.dumps(r) + ("," if i < len(results) - 1 else "") for i, r in enumerate(results)]
    return "\n".join(lines + ["]}"]) + "\n"


async def check_all(targets: list[tuple[str, str, int]], timeout: float) -> list[dict[str, Any]]:
    import asyncio
    gate = asyncio.Semaphore(PARALLEL)

    async def one(target: tuple[str, str, int]) -> dict[str, Any]:
        async with gate:
            return await check(*target, timeout=timeout)
    return list(await asyncio.gather(*(one(t) for t in targets)))


async def check(purpose: str, host: str, port: int, timeout: float) -> dict[str, Any]:
    result: dict[str, Any] = {"purpose": purpose, "host": host, "port": port, "address": "", "outcome": "", "seconds": 0.0}
    import asyncio
    started = time.monotonic()
    loop = asyncio.get_running_loop()
    try:
        infos = await asyncio.wait_for(loop.getaddrinfo(host, port, type=socket.SOCK_STREAM), timeout)
        result["address"] = infos[0][4][0]
        _, writer = await asyncio.wait_for(asyncio.open_connection(result["address"], port), timeout)
        writer.close()
        result["outcome"] = "open"
    except socket.gaierror as exc:
        result.update(outcome="unresolved", error=f"getaddrinfo error {exc.errno}")
    except (asyncio.TimeoutError, TimeoutError):
        result.update(outcome="timeout" if result["address"] else "unresolved", error=f"no answer within {timeout:g}s")
    except ConnectionRefusedError:
        result.update(outcome="refused", error="connection refused")
    except OSError as exc:
        unreachable = exc.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH)
        result.update(outcome="unreachable" if unreachable else "error", error=exc.strerror or str(exc))
    result["seconds"] = round(time.monotonic() - started, 3)
    return result
