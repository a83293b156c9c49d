"""iperf3 (and iperf 2) between two nodes: the throughput that arrived, as text or as `iperf3 --json`.

Sample input (client, text):
    Connecting to host 10.213.0.1, port 5201
    [  5] local 10.213.0.2 port 34906 connected to 10.213.0.1 port 5201
    [  5]   0.00-3.01   sec   291 MBytes   811 Mbits/sec   48             sender
    [  5]   0.00-3.03   sec   285 MBytes   790 Mbits/sec                  receiver
    [SUM]   0.00-10.00  sec  10.9 GBytes  9.41 Gbits/sec                  receiver     (with -P N)
    iperf3: error - unable to connect to server: Connection refused

The receiver summary is what crossed the link; with parallel streams the [SUM] line wins.

iperf 2 (`iperf -c`, still common in forum posts) words it "connected with" and prints no sender/receiver column:
    Client connecting to 10.92.114.61, TCP port 5001
    [  3] local 10.92.107.37 port 61802 connected with 10.92.114.61 port 5001
    [  3]  0.0-10.0 sec  5.60 GBytes  4.80 Gbits/sec
its summary is the line covering the longest interval ([SUM] first).
"""
from __future__ import annotations

import re

from doctor.facts.launch import ConnectError
from doctor.facts.measure import BandwidthSample
from doctor.probing.contract import DocumentProbe, LineProbe, ParseContext
from doctor.probing.lines import address_class, errno_of, json_object
from doctor.probing.regex import lazy_compile
from doctor.probing.json_values import json_list, json_obj

_UNIT = {"": 1e-9, "K": 1e-6, "M": 1e-3, "G": 1.0, "T": 1e3}
_SUMMARY = lazy_compile(r"^\[\s*(?P<id>\d+|SUM)\]\s+(?P<t0>[\d.]+)-(?P<t1>[\d.]+)\s+sec\s+[\d.]+\s+\w?Bytes\s+"
                      r"(?P<rate>[\d.]+)\s+(?P<unit>[KMGT]?)bits/sec\b(?:.*?\b(?P<role>sender|receiver))?\s*$")
_CONNECTING = lazy_compile(r"(?:Connecting to host|Client connecting to) (?P<host>[^,\s]+), (?:TCP |UDP )?port (?P<port>\d+)")
_ACCEPTED = lazy_compile(r"Accepted connection from (?P<host>[^,\s]+), port \d+")
_LOCAL = lazy_compile(r"local (?P<local>\S+) port \d+ connected (?P<word>to|with) (?P<remote>\S+) port \d+")
_ERROR = lazy_compile(r"iperf3: error - unable to connect to server(?: - server may have stopped running)?:?\s*(?P<err>.*)$")


def gbps(rate: float, prefix: str) -> float:
    return round(rate * _UNIT.get(prefix, 1.0), 4)


class Iperf3Text(LineProbe):
    name = "iperf3"
    yields = ("bench.bandwidth", "net.connect_error")
    triggers = ("Connecting to host", "Accepted connection from", "sender", "receiver", "iperf3: error", " connected to ",
                "Reverse mode", "Client connecting to", " connected with ", "Server listening on", "bits/sec")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.peer, self.port, self.local, self.streams = "", 5201, "", 0
        self.receiving = False                                # this end receives: an iperf3 server, or a client with -R
        self.iperf2 = False                                   # "connected with": iperf 2, whose summaries name no role
        self.rank: tuple[bool, bool, float] | None = None  # ([SUM] line, receiver side, seconds) of the best summary so far
        self.best: tuple[int, str, re.Match[str]] | None = None

    def feed(self, line_no: int, line: str) -> None:
        if (m := _CONNECTING.search(line)):
            self.peer, self.port = m["host"], int(m["port"])
        elif (m := _ACCEPTED.search(line)):
            self.peer, self.receiving = m["host"], True
        elif "Reverse mode" in line:
            self.receiving = True
        elif "Server listening on" in line:
            self.receiving = self.receiving or "UDP" in line or "TCP" in line     # iperf 2's server: it receives
        elif (m := _LOCAL.search(line)):
            self.local, self.peer = m["local"], self.peer or m["remote"]
            self.streams += 1
            self.iperf2 = self.iperf2 or m["word"] == "with"
        elif (m := _SUMMARY.search(line.strip())) and (m["role"] or self.iperf2):
            receiver = m["role"] == "receiver" if m["role"] else self.receiving
            rank = (m["id"] == "SUM", receiver, 0.0 if m["role"] else float(m["t1"]) - float(m["t0"]))
            if self.rank is None or rank >= self.rank:
                self.rank, self.best = rank, (line_no, line, m)
        elif (m := _ERROR.search(line)):
            loopback, link_local = address_class(self.peer) if self.peer else (False, False)
            outcome = {"ECONNREFUSED": "refused", "ETIMEDOUT": "timeout", "EHOSTUNREACH": "unreachable",
                       "ENETUNREACH": "unreachable"}.get(errno_of(m["err"]), "other")
            self.ctx.emit(ConnectError, line_no, line, node=self.ctx.node, host=self.peer, port=self.port,
                          outcome=outcome, transport="tcp", loopback=loopback, link_local=link_local)

    def finish(self) -> None:
        if self.best is None:
            return
        line_no, line, m = self.best
        role = m["role"] or ("receiver" if self.receiving else "sender")
        self.ctx.emit(BandwidthSample, line_no, line, tool="iperf" if self.iperf2 else "iperf3", metric="link_gbps",
                      gbps=gbps(float(m["rate"]), m["unit"]), peer=self.peer, local=self.local,
                      path=_path(self.local, self.peer, self.receiving), streams=max(self.streams, 1),
                      seconds=round(float(m["t1"]) - float(m["t0"]), 2), role=role)


class Iperf3Json(DocumentProbe):
    name = "iperf3_json"
    yields = ("bench.bandwidth", "net.connect_error")

    @classmethod
    def sniff(cls, head: str) -> bool:
        start = head.lstrip()[:4000]
        return start.startswith("{") and '"start"' in start and ('"test_start"' in start or '"error"' in start) \
            and ('"connecting_to"' in start or '"accepted_connection"' in start or '"iperf_version"' in start
                 or '"version"' in start)

    def parse(self, text: str, ctx: ParseContext) -> None:
        data = json_object(text)
        if data is None:
            return
        start = json_obj(data.get("start"))
        target, accepted = json_obj(start.get("connecting_to")), json_obj(start.get("accepted_connection"))
        peer = str(target.get("host") or accepted.get("host") or "")
        connected = [c for c in json_list(start.get("connected")) if isinstance(c, dict)]
        local = str(connected[0].get("local_host", "")) if connected else ""
        receiving = bool(json_obj(start.get("test_start")).get("reverse")) or bool(accepted)
        port = _int(target.get("port"), 5201)
        anchor = _anchor(text)
        if data.get("error"):
            loopback, link_local = address_class(peer) if peer else (False, False)
            err = str(data["error"])
            outcome = {"ECONNREFUSED": "refused", "ETIMEDOUT": "timeout", "EHOSTUNREACH": "unreachable"}.get(errno_of(err), "other")
            if "connect" in err:
                ctx.emit(ConnectError, anchor[0], f'"error": "{err}"', host=peer, port=port, outcome=outcome,
                         transport="tcp", loopback=loopback, link_local=link_local)
            return
        end = json_obj(data.get("end"))
        summary = json_obj(end.get("sum_received") or end.get("sum") or end.get("sum_sent"))
        rate = _float(summary.get("bits_per_second"), -1.0) / 1e9
        if rate <= 0:
            return
        sent = json_obj(end.get("sum_sent"))
        streams = _int(json_obj(start.get("test_start")).get("num_streams"), len(connected) or 1)
        line_no, line = anchor
        ctx.emit(BandwidthSample, line_no, line,
                 tool="iperf3", metric="link_gbps", gbps=round(rate, 4), peer=peer, local=local,
                 path=_path(local, peer, receiving), streams=streams,
                 seconds=round(_float(summary.get("seconds"), -1.0), 2), retransmits=_int(sent.get("retransmits"), -1),
                 role="receiver")


def _float(value: object, default: float) -> float:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default
    return number if number == number and abs(number) != float("inf") else default


def _int(value: object, default: int) -> int:
    number = _float(value, float(default))
    return int(number) if abs(number) < 2**62 else default


def _path(local: str, peer: str, receiving: bool) -> str:
    if not (local or peer):
        return ""
    ends = (peer or "?", local or "this node") if receiving else (local or "this node", peer or "?")
    return f"{ends[0]} -> {ends[1]}"


def _anchor(text: str) -> tuple[int, str]:
    """The line of the receiver's bits_per_second (so the evidence points at the figure), else line 1."""
    lines = text.splitlines()
    in_received = False
    for number, line in enumerate(lines, start=1):
        if '"sum_received"' in line or '"error"' in line:
            in_received = True
            if '"error"' in line:
                return number, line.strip()
        if in_received and '"bits_per_second"' in line:
            return number, line.strip()
    return 1, lines[0].strip() if lines else ""
