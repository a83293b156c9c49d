"""PyTorch Lightning / Lightning Fabric around distributed init, in their own words.

Sample input:
    Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/8
    All distributed processes registered. Starting with 8 processes                 (rank 0, once all joined)
    initializing ddp: GLOBAL_RANK: 1, MEMBER: 2/8                                   (Lightning < 1.6)
    I0411 01:28:10.345 140656 distributed.py:244] Initializing distributed: GLOBAL_RANK: 6, MEMBER: 7/32
    lightning_fabric.utilities.exceptions.MisconfigurationException: You requested gpu: [0, 1, 2, 3]
     But your machine only has: [0, 1]
    pytorch_lightning.utilities.exceptions.MisconfigurationException: GPUs requested but none are available.
    RuntimeError: You set `--ntasks=8` in your SLURM bash script, but this variable is not supported. HINT: Use `--ntasks-per-node=8` instead.

A request for GPUs the machine lacks is an ordinal error when the machine has some; when it has none ("only has: []",
"none are available") Lightning counted zero GPUs (torch.cuda.device_count() == 0) without knowing why: a CPU-only
PyTorch build, no usable driver, or GPUs hidden from the process. That is a cuda.error none_counted (a narrowing sign).

Each process announces its global rank once; the same rank announced twice in the same wording while other ranks
never appear means two processes got one rank (SLURM tasks per node not matching the Trainer's devices).
"""
from __future__ import annotations


from doctor.facts.gpu import CudaError
from doctor.facts.launch import DeviceOrdinalError, LaunchConfigError
from doctor.facts.launchers import RankAnnounce, RanksRegistered
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.regex import lazy_compile

_ANNOUNCE = lazy_compile(r"^(?P<prefix>.*?)[Ii]nitializing (?:ddp|distributed): GLOBAL_RANK: (?P<rank>\d+), MEMBER: (?P<member>\d+)/(?P<world>\d+)")
_REQUESTED = lazy_compile(r"You requested (?:gpu|GPUs|gpus|devices)s?: \[(?P<ids>[\d,\s]*)\]")
_HAS = lazy_compile(r"But your machine only has: \[(?P<ids>[\d,\s]*)\]")
_SLURM = lazy_compile(r"(?P<msg>You set `--ntasks=\d+` in your SLURM bash script[^\n]*|"
                    r"Lightning can't create new processes if CUDA is already initialized[^\n]*)")
_NONE_AVAILABLE = lazy_compile(r"GPUs requested but none are available")
_REGISTERED = lazy_compile(r"All (?:distributed|DDP) processes registered\. Starting (?:ddp )?with (?P<world>\d+) processes")
_DIGITS = lazy_compile(r"\d+")


class Lightning(LineProbe):
    name = "lightning"
    yields = ("launch.rank_announce", "launch.ranks_registered", "launch.ordinal_error", "launch.config_error", "cuda.error")
    triggers = ("GLOBAL_RANK:", "processes registered", "You requested", "But your machine only has", "in your SLURM bash script",
                "CUDA is already initialized", "none are available")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.requested: tuple[int, str, list[int]] | None = None
        self.seen: dict[tuple[str, int], int] = {}

    def feed(self, line_no: int, line: str) -> None:
        if (m := _ANNOUNCE.search(line)):
            form = _DIGITS.sub("#", m["prefix"].strip())[-40:]
            rank = int(m["rank"])
            self.seen[(form, rank)] = seq = self.seen.get((form, rank), 0) + 1
            self.ctx.emit(RankAnnounce, line_no, line, framework="lightning", global_rank=rank, world=int(m["world"]),
                          form=form, seq=seq)
            return
        if (m := _REGISTERED.search(line)):
            self.ctx.emit(RanksRegistered, line_no, line, framework="lightning", world=int(m["world"]))
            return
        if (m := _REQUESTED.search(line)):
            ids = [int(x) for x in _DIGITS.findall(m["ids"])]
            self.requested = (line_no, line, ids)
        if (m := _HAS.search(line)) and self.requested and line_no - self.requested[0] <= 2:
            has = {int(x) for x in _DIGITS.findall(m["ids"])}
            missing = [i for i in self.requested[2] if i not in has]
            n, first, _ = self.requested
            if has:
                self.ctx.emit(DeviceOrdinalError, n, first, device=max(missing) if missing else -1)
            else:
                self.ctx.emit(CudaError, line_no, line, error="none_counted", detail="Lightning: machine only has: []")
            self.requested = None
        elif (m := _NONE_AVAILABLE.search(line)):
            self.ctx.emit(CudaError, line_no, line, error="none_counted", detail=f"Lightning: {m.group(0)}")
        elif (m := _SLURM.search(line)):
            self.ctx.emit(LaunchConfigError, line_no, line, what=f"Lightning: {m['msg'].strip()[:160]}")
