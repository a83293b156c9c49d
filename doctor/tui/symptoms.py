"""What a person can say they saw, and what doctor reads for it. Plain data: no textual here."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SymptomChoice:
    symptom: str | None          # an id of `doctor analyze --symptom`, None for "not sure"
    label: str
    seen: str                    # how it looks from the outside
    looks_at: tuple[str, ...]    # what doctor reads for it
    bring: tuple[str, ...]       # the artifacts that help most, if not given yet


SYMPTOM_CHOICES: tuple[SymptomChoice, ...] = (
    SymptomChoice("init_timeout", "Init timeout", "the job never gets past init_process_group / rendezvous",
                  ("store and rendezvous connect errors", "MASTER_ADDR / MASTER_PORT", "interfaces NCCL and gloo chose",
                   "name resolution and /etc/hosts"),
                  ("every rank's log (rank 0 too)", "`env | grep -E 'MASTER|NCCL|GLOO'`", "the launch command")),
    SymptomChoice("hang", "Hang during training", "it started, then stopped making progress; watchdog timeouts",
                  ("watchdog and collective timeouts", "sequence numbers per rank", "ranks that lag or left"),
                  ("all ranks' logs with TORCH_NCCL_TRACE_BUFFER_SIZE set", "py-spy dump of a stuck rank")),
    SymptomChoice("nccl_error", "NCCL error", "an NCCL error, 'unhandled system error', or a crash in a collective",
                  ("NCCL WARN lines and return codes", "shared memory, IB and socket transports", "NCCL versions per rank"),
                  ("a log with NCCL_DEBUG=INFO", "`nvidia-smi topo -m`", "`ibv_devinfo`")),
    SymptomChoice("slow_training", "Slow on one node", "one node is slower than it should be, or than the others",
                  ("GPU topology (NVLink, PCIe)", "P2P / SHM settings", "per-rank step times"),
                  ("`nvidia-smi topo -m`", "a profiler trace", "nccl-tests all_reduce_perf output")),
    SymptomChoice("slow_multinode", "Slow across nodes", "scaling to more nodes is slow; bus bandwidth is low",
                  ("which network NCCL used (IB or sockets)", "GPUDirect RDMA", "IB port state", "bus bandwidth"),
                  ("a log with NCCL_DEBUG=INFO from two nodes", "`ibv_devinfo`", "nccl-tests across nodes")),
    SymptomChoice("slow_training", "Low GPU utilisation", "GPUs sit idle part of every step",
                  ("data loading and worker errors", "communication exposed in the step", "per-rank idle time"),
                  ("a torch.profiler trace", "the training log with step and data times")),
    SymptomChoice("oom", "Out of memory", "CUDA out of memory, on one rank or all",
                  ("the OOM message: allocated, reserved, free, other processes", "what the program was doing"),
                  ("the full OOM message", "`nvidia-smi` at the time", "a memory snapshot")),
    SymptomChoice(None, "Not sure", "something is wrong: let doctor rank every cause it can see",
                  ("everything in the inputs",), ("whatever logs you have",)),
)
