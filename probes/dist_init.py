"""Frameworks announcing the steps of distributed init, in their own words, and XLA's rendezvous that waits too long.

An engineer reading the log of a job that hangs looks at its last line: a log that ends on "initializing the process
group" with nothing after it stopped there. These lines say where init stood (launch.init_step; doctor/aggregate_launch.py
init_stopped reads whether anything came after); Lightning's GLOBAL_RANK announcements count as its init step here
(probes/lightning.py reads them for rank checks).

Sample input:
    [2024-06-11 00:23:36,254] [INFO] [comm.py:668:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl
    I0302 02:01:36.274989 31267 nccl_context.cc:83] init nccl context nranks: 4 local rank: 0/1 gpu id: 0/1 ring id: 0/1
    [I715 22:47:11.296780083 socket.cpp:872] [c10d] No socket on (localhost, 0) is listening yet, will retry.
    INFO 08-12 20:26:09 [parallel_state.py:1102] world_size=2 rank=0 local_rank=0 distributed_init_method=tcp://127.0.0.1:44721 backend=nccl
    Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/4
    I0821 torch/distributed/distributed_c10d.py:442] Waiting in store based barrier to initialize process group for rank: 0, key: store_based_barrier_key:1 (world_size=2, worker_count=1, timeout=0:30:00)

XLA (JAX) warns when a rendezvous, such as the NCCL clique's init, has waited longer than it should; the job is stuck
there unless the rest arrive (read as collective.stalled, framework xla):
    E external/xla/xla/service/rendezvous.cc:38] This thread has been waiting for `initialize clique for rank 6; ...` for 10 seconds and may be stuck.
"""
from __future__ import annotations

from doctor.facts.launch import InitStep
from doctor.facts.launchers import CollectiveStall
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.regex import lazy_compile

# (framework, step, pattern): the step names where init stood when the line was printed
_STEPS = (
    ("deepspeed", "init_distributed", lazy_compile(r"Initializing TorchBackend in DeepSpeed with backend (?P<arg>\w+)")),
    ("paddle", "nccl_context", lazy_compile(r"init nccl context nranks: (?P<arg>\d+)")),
    ("pytorch", "store_connect", lazy_compile(r"\[c10d\] No socket on \((?P<arg>[^)]{0,200})\) is listening yet, will retry")),
    ("pytorch", "store_barrier", lazy_compile(r"Waiting in store based barrier to initialize process group for rank: (?P<arg>\d+)")),
    ("vllm", "init_distributed", lazy_compile(r"world_size=(?P<arg>\d+) rank=\d+ local_rank=\d+ distributed_init_method=")),
    ("lightning", "rank_announce", lazy_compile(r"[Ii]nitializing (?:ddp|distributed): GLOBAL_RANK: (?P<arg>\d+)")),
)
# Progress no other probe reads, after which init is over: DeepSpeed's step and timer lines, tqdm bars (Lightning,
# HF), c10d's completed store barrier, vLLM's throughput lines
_WENT_ON = ("] step=", "global_step=", "it/s]", "s/it]", "Completed store-based barrier", "Avg prompt throughput",
            "Processed prompts:")
_XLA_STUCK = lazy_compile(r"This thread has been waiting for `(?P<op>[^`;]{1,80})[^`]{0,400}` for (?P<s>\d+) seconds and may be stuck")


class DistInit(LineProbe):
    name = "dist_init"
    yields = ("launch.init_step", "collective.stalled")
    triggers = ("Initializing TorchBackend in DeepSpeed", "init nccl context nranks", "is listening yet, will retry",
                "Waiting in store based barrier", "distributed_init_method=", "GLOBAL_RANK:", "and may be stuck") + _WENT_ON

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.last: tuple[int, str, str, str, str] | None = None    # the latest init line: where the log stood

    def feed(self, line_no: int, line: str) -> None:
        if any(word in line for word in _WENT_ON):
            self.last = None            # init was over, or not begun: either way no init line to end on; a progress
            return                      # line (a tqdm bar, a step) is fed often, so it costs no regex here
        m = _XLA_STUCK.search(line)
        if m:
            self.ctx.emit(CollectiveStall, line_no, line, framework="xla", op=m["op"].strip(), waited_s=float(m["s"]))
            return
        for framework, step, pattern in _STEPS:
            m = pattern.search(line)
            if m:
                self.last = (line_no, line, framework, step, m["arg"][:80])
                return

    def finish(self) -> None:
        """One fact per input whose output went no further than init, as far as this probe reads: its last init line
        (every rank prints the same step; the last one is where it stood)."""
        if self.last:
            line_no, line, framework, step, detail = self.last
            self.ctx.emit(InitStep, line_no, line, framework=framework, step=step, detail=detail)
