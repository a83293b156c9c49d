"""Collectives that did not complete: NCCL watchdog timeouts, gloo timeouts, desync reports, lost peers.

Sample input:
    [rank1]:[E626 06:24:44 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.
    [PG ID 0 PG GUID 0(default_pg) Rank 1] Exception (either an error or timeout) detected by watchdog at work: 808, last enqueued NCCL work: 811, last completed NCCL work: 807.
    RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 10000ms for recv operation to complete
    RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: CollectiveFingerPrint(SequenceNumber=21, OpType=BROADCAST, ...
    RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer [10.0.0.2]:10890
    frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10c (0x1554e9e1871c in .../libtorch_cuda.so)
    [PG ID 12 ... Rank 4] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives.
"""
from __future__ import annotations


from doctor.facts.collective import (CollectiveMismatch, CollectiveProgress, CollectiveTimeout, PeerLost,
                                     UnusedParameters)
from doctor.facts.launchers import CollectiveStall
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.regex import lazy_compile

_RANK = lazy_compile(r"\[Rank (?P<r>\d+)\]")
_NUMEL = lazy_compile(r"NumelIn=(?P<n>\d+)")
_WORK = lazy_compile(r"Work\w*\((?:SeqNum=(?P<seq>\d+), )?OpType=(?P<op>\w+)(?:.*?Timeout\(ms\)=(?P<ms>\d+))?")
_PROGRESS = lazy_compile(r"last enqueued (?:NCCL )?work: (?P<enq>-?\d+), last completed (?:NCCL )?work: (?P<done>-?\d+)")
_TIMEOUT_AT = lazy_compile(r"Timeout at NCCL work: (?P<seq>\d+)")
_GLOO_WAIT = lazy_compile(r"Timed out waiting (?P<ms>\d+)ms for (?P<op>\w+) operation")
_FINGERPRINT = lazy_compile(r"Rank (?P<r>\d+) is running (?:inconsistent )?collective: CollectiveFingerPrint\((?:SequenceNumber=(?P<seq>\d+), )?OpType=(?P<op>\w+)")
# ProcessGroupWrapper (TORCH_DISTRIBUTED_DEBUG=DETAIL): "Error when verifying shape tensors for collective ALLREDUCE on
# rank 0. This likely indicates that input shapes into the collective are mismatched across ranks."
_SHAPES = lazy_compile(r"Error when verifying shape tensors for collective (?P<op>\w+) on rank \d+")
# the Flight Recorder analyser's report (torch.distributed.flight_recorder, `torchfrtrace`): "Not all ranks joining
# collective 5 at entry 4" followed by "missing ranks: {1}"
_FR_MISSING = lazy_compile(r"Not all ranks joining collective (?P<seq>\d+) at entry \d+")
# ProcessGroupNCCL's desync report (TORCH_NCCL_DESYNC_DEBUG=1) under "the lagging/dead/mismatched ranks that caused the
# desync are:": "[1] finished collective #2, but didn't join collective #3 (count from 1)" (stas00's the-art-of-
# debugging, held-out batch FX). Its other form, "[r] joined but didn't finish collective #N", is a rank stuck inside
# the collective: no mismatch
_NOT_JOINED = lazy_compile(r"\[(?P<r>\d+)\] finished collective #\d+, but didn't join collective #(?P<seq>\d+)")
# PyTorch's heartbeat monitor: the watchdog thread itself hangs inside a NCCL or CUDA call (a communicator torn down in
# the wrong order, a kernel that never finishes): "ProcessGroupNCCL's watchdog got stuck for 480 seconds without making
# progress in monitoring enqueued collectives" (ms-swift#7992, Fuser#3055), then "Terminating the process ... due to
# ProcessGroupNCCL watchdog hang"; older: "Heartbeat monitor timed out!". The process hangs: a hang, not a warning
_WATCHDOG_STUCK = lazy_compile(r"watchdog got stuck for (?P<s>\d+) seconds|due to ProcessGroupNCCL watchdog hang"
                               r"|Heartbeat monitor timed out")
_PEER = lazy_compile(r"(?P<why>Connection closed by peer|Connection reset by peer|Read error|Write error)\s*\[?(?P<peer>[^\]\s]*)\]?(?::(?P<port>\d+))?")


# MPI's error handler names the call that failed; only collectives read as a mismatch of the ranks' calls
_MPI_ERROR_IN = lazy_compile(r"\*\*\* An error occurred in (?P<call>MPI_\w+)")
# the calls that receive into a buffer: a collective, a receive, or the completion of a nonblocking one (only
# receives truncate, so a Wait or Test that does names one)
_MPI_RECEIVING = lazy_compile(r"MPI_(?:I?(?:Bcast|Reduce|Allreduce|Gatherv?|Scatterv?|Allgatherv?|Alltoall[vw]?"
                              r"|Reduce_scatter(?:_block)?|Scan|Exscan)"
                              r"|Recv|Irecv|Mrecv|Imrecv|Sendrecv(?:_replace)?|Wait(?:all|any|some)?|Test(?:all|any|some)?)$")
# Boost.MPI's exception text: the call and the error on one line ("what():  MPI_Recv: MPI_ERR_TRUNCATE: ...")
_MPI_CALL_TRUNCATED = lazy_compile(r"\b(?P<call>MPI_\w+): MPI_ERR_TRUNCATE\b")


class Collectives(LineProbe):
    name = "collectives"
    yields = ("collective.timeout", "collective.progress", "collective.mismatch", "collective.peer_lost",
              "ddp.unused_parameters", "collective.stalled")
    triggers = ("An error occurred in MPI_", "MPI_ERR_TRUNCATE", "Watchdog caught", "Timeout at NCCL work", "Mismatched collective detected", "collective operation timeout", "ncclCommWatchdog", "watchdogHandler",
                "last enqueued", "Timed out waiting", "Detected mismatch between collectives", "CollectiveFingerPrint",
                "Error when verifying shape tensors", "Cannot apply desired operation due to shape mismatches",
                "Not all ranks joining collective", "but didn't join collective",
                "Connection closed by peer", "Connection reset by peer", "Some NCCL operations have failed",
                "finished reduction in the prior iteration", "NCCL communicator was aborted", "Read error", "Write error",
                "watchdog got stuck", "watchdog hang", "Heartbeat monitor timed out")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.mpi_call: tuple[int, str] = (0, "")   # the line and collective of MPI's last "An error occurred in"

    def feed(self, line_no: int, line: str) -> None:
        rank_m = _RANK.search(line)
        rank = int(rank_m["r"]) if rank_m else None
        if "Watchdog caught" in line or "collective operation timeout" in line:
            m, numel = _WORK.search(line), _NUMEL.search(line)
            self.ctx.emit(CollectiveTimeout, line_no, line, rank=rank, backend="nccl", watchdog=True,
                          seq=int(m["seq"]) if m and m["seq"] else -1, op=m["op"] if m else "",
                          timeout_s=int(m["ms"]) / 1000 if m and m["ms"] else -1, numel=int(numel["n"]) if numel else -1)
        elif "ncclCommWatchdog" in line or "watchdogHandler" in line or "Some NCCL operations have failed" in line \
                or "communicator was aborted" in line:
            self.ctx.emit(CollectiveTimeout, line_no, line, rank=rank, backend="nccl", watchdog=True)
        if "atchdog" in line or "Heartbeat" in line:
            if (stuck := _WATCHDOG_STUCK.search(line)):
                self.ctx.emit(CollectiveStall, line_no, line, rank=rank, framework="pytorch_watchdog",
                              waited_s=float(stuck["s"]) if stuck["s"] else -1)
        m = _TIMEOUT_AT.search(line)
        if m:
            self.ctx.emit(CollectiveTimeout, line_no, line, rank=rank, backend="nccl", watchdog=True, seq=int(m["seq"]))
        m = _PROGRESS.search(line)
        if m:
            self.ctx.emit(CollectiveProgress, line_no, line, rank=rank, last_enqueued=int(m["enq"]),
                          last_completed=int(m["done"]))
        m = _GLOO_WAIT.search(line)
        if m:
            self.ctx.emit(CollectiveTimeout, line_no, line, backend="gloo", op=m["op"], timeout_s=int(m["ms"]) / 1000)
        self._desync(line_no, line)

    def _mpi_truncated(self, line_no: int, line: str) -> bool:
        """MPI's error handler: "*** An error occurred in MPI_Bcast", then "*** MPI_ERR_TRUNCATE: message truncated".
        A collective that received more than its buffer holds: the ranks passed counts or types that do not match, or
        one rank's earlier call was matched with another's later one (users list 2007/4133, 2011/15256, 2015/26610).
        The same after a receive (MPI_Recv, or MPI_Wait completing an MPI_Irecv): a message larger than the buffer
        posted for it, the sender and the receiver disagreeing on its size, or a wildcard receive matching another
        message than the one meant (users 2009/9422; Open MPI's developers in devel 2006/1190 and users 2010/12871)."""
        if "An error occurred in MPI_" in line and (m := _MPI_ERROR_IN.search(line)):
            self.mpi_call = (line_no, m["call"] if _MPI_RECEIVING.match(m["call"]) else "")
            return True
        if "MPI_ERR_TRUNCATE" in line and self.mpi_call[1] and line_no - self.mpi_call[0] <= 3:
            self.ctx.emit(CollectiveMismatch, line_no, line, op=self.mpi_call[1], seq=-1)
            self.mpi_call = (0, "")
            return True
        if "MPI_ERR_TRUNCATE" in line and (m := _MPI_CALL_TRUNCATED.search(line)) and _MPI_RECEIVING.match(m["call"]):
            self.ctx.emit(CollectiveMismatch, line_no, line, op=m["call"], seq=-1)
            return True
        return False

    def _desync(self, line_no: int, line: str) -> None:
        if self._mpi_truncated(line_no, line):
            return
        if "Mismatched collective detected" in line:
            self.ctx.emit(CollectiveMismatch, line_no, line, op="", seq=-1)
        elif "Cannot apply desired operation due to shape mismatches" in line:
            # accelerate's debug mode (ACCELERATE_DEBUG_MODE): the processes passed different shapes to one operation
            self.ctx.emit(CollectiveMismatch, line_no, line, op="", seq=-1)
        elif m := _NOT_JOINED.search(line):
            self.ctx.emit(CollectiveMismatch, line_no, line, rank=int(m["r"]), op="", seq=int(m["seq"]))
        elif m := _FR_MISSING.search(line):
            # the Flight Recorder analyser (torchfrtrace): some ranks never entered collective N
            self.ctx.emit(CollectiveMismatch, line_no, line, op="", seq=int(m["seq"]))
        elif m := _SHAPES.search(line):
            # TORCH_DISTRIBUTED_DEBUG=DETAIL's shape check before a collective: the ranks passed tensors of different
            # shapes to one collective (the PyTorch docs' example: without DETAIL, NCCL hangs or reads garbage)
            self.ctx.emit(CollectiveMismatch, line_no, line, op=m["op"], seq=-1)
        elif "Detected mismatch between collectives" in line or _FINGERPRINT.search(line):
            # A fingerprint alone is no mismatch: TORCH_DISTRIBUTED_DEBUG=DETAIL prints "[Rank 0] Running collective:
            # CollectiveFingerPrint(...)" for every collective of a healthy run; only "Rank N is running
            # (inconsistent) collective" is the wrapper's report of a difference between ranks.
            m = _FINGERPRINT.search(line)
            self.ctx.emit(CollectiveMismatch, line_no, line, rank=int(m["r"]) if m else None,
                          op=m["op"] if m else "", seq=int(m["seq"]) if m and m["seq"] else -1)
        m = _PEER.search(line)
        if m and ("gloo" in line or "peer" in m["why"] or "pair.cc" in line):
            reason = "closed" if "closed" in m["why"] else "reset"
            self.ctx.emit(PeerLost, line_no, line, peer=m["peer"], reason=reason)
        if "finished reduction in the prior iteration" in line:
            self.ctx.emit(UnusedParameters, line_no, line)
