"""Inference-server launchers that supervise one GPU worker process per shard, in their own words.

text-generation-inference's launcher (text_generation_launcher) starts a weights-download process and one shard per
GPU; when a child dies of a signal it prints the signal's number, never the child's own message:
    Error: Download process was signaled to shutdown with signal 7
    2024-10-01T07:43:22.342900Z ERROR shard-manager: text_generation_launcher: Shard process was signaled to shutdown with signal 6 rank=0
Signal 7 is SIGBUS; in a container it is a page of /dev/shm that could not be backed (the maintainers' answer on
huggingface/text-generation-inference#446: "You didn't mount the shm volume"; IBM's fork of the launcher prints that
advice on signal 7, IBM/text-generation-inference PR 34). Read as launch.worker_exit, like DeepSpeed's and mpirun's
reports of a killed rank.

vLLM says how many nodes its workers span, as a launcher option would:
    (Worker pid=820) DEBUG 08-09 20:55:03 [distributed/parallel_state.py:1689] Detected 1 nodes in the distributed environment
"""
from __future__ import annotations

from doctor.facts.launch import LaunchOption
from doctor.facts.launchers import WorkerExit
from doctor.probing.contract import LineProbe
from doctor.probing.regex import lazy_compile
from probes.deepspeed import SIGNALS

_VLLM_NODES = lazy_compile(r"Detected (?P<n>\d{1,5}) nodes in the distributed environment")
_TGI_SIGNALED = lazy_compile(r"(?P<child>\w+) process was signaled to shutdown with signal (?P<sig>\d+)(?:.*?\brank=(?P<rank>\d+))?")


class ServingLaunchers(LineProbe):
    name = "serving_launchers"
    yields = ("launch.worker_exit", "launch.option")
    triggers = ("signaled to shutdown with signal", "nodes in the distributed environment")

    def feed(self, line_no: int, line: str) -> None:
        if (m := _TGI_SIGNALED.search(line)):
            code = -int(m["sig"])
            self.ctx.emit(WorkerExit, line_no, line, rank=int(m["rank"]) if m["rank"] else None,
                          launcher="text-generation-inference", code=code, signal=SIGNALS.get(code, ""))
        elif (m := _VLLM_NODES.search(line)):
            self.ctx.emit(LaunchOption, line_no, line, launcher="vllm", name="nnodes", value=m["n"])
