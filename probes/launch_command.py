"""Launcher command lines and scheduler scripts: torchrun/torch.distributed.run/launch, #SBATCH, srun, deepspeed.

Sample input:
    python -m torch.distributed.run --rdzv_backend c10d --rdzv_endpoint "$VC_SH_0_HOSTS" --nnodes 2 train.py
    torchrun --nproc_per_node=8 --nnodes=2 --master_addr=10.0.0.1 --master_port=29500 train.py
    #SBATCH --gpus-per-task=1
    accelerate launch --config_file ./ds_zero2_config.yaml \\
        --num_machines $WORKER_NUM \\          (a command continued with backslashes: its launcher's flags)
"""
from __future__ import annotations


from doctor.facts.launch import LaunchOption
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.regex import lazy_compile

_LAUNCHERS: tuple[tuple[str, str], ...] = (
    ("torchrun", "torchrun"), ("torch.distributed.run", "torchrun"), ("torch.distributed.launch", "torchrun"),
    ("#SBATCH", "slurm"), ("srun ", "slurm"), ("deepspeed ", "deepspeed"), ("deepspeed.launcher.runner", "deepspeed"),
    ("accelerate launch", "accelerate"), ("accelerate.commands.launch", "accelerate"),
    ("mpirun ", "mpirun"), ("horovodrun ", "horovod"),
)
_ELASTIC_CONFIG = lazy_compile(r"^\s*(?P<name>rdzv_endpoint|rdzv_backend|min_nodes|max_nodes|nproc_per_node|max_restarts)\s+:\s*(?P<value>\S+)\s*$")
_FLAG = lazy_compile(r"(?:^|\s)--?(?P<name>[a-zA-Z][\w\-]*)(?:[= ](?P<value>\"[^\"]*\"|'[^']*'|[^\s\-][^\s]*))?")
_KEEP = {"nproc_per_node", "nproc-per-node", "nnodes", "node_rank", "node-rank", "rdzv_endpoint", "rdzv-endpoint",
         "rdzv_backend", "rdzv-backend", "master_addr", "master-addr", "master_port", "master-port", "gpus-per-task",
         "gpus-per-node", "gres", "ntasks-per-node", "ntasks", "nodes", "gpus", "num_gpus", "num_nodes", "hostfile",
         "include", "num_processes", "main_process_port", "main_process_ip", "np", "H", "num_machines", "machine_rank"}


_CONTINUED = lazy_compile(r"\\\s*$")       # a shell line continued on the next one


class LaunchCommand(LineProbe):
    name = "launch_command"
    yields = ("launch.option",)
    # "--flag" triggers bring the continuation lines of a multi-line launch command (see _continues)
    triggers = tuple(words for words, _ in _LAUNCHERS) + ("rdzv_endpoint", "rdzv_backend", "min_nodes", "max_nodes",
                                                          "nproc_per_node", "max_restarts") + tuple(
        f"--{flag}" for flag in sorted(_KEEP) if len(flag) > 2)

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.open_command: tuple[int, str] | None = None     # (line number, launcher) of a line ending in '\\'

    def _continues(self, line_no: int, line: str) -> str:
        """The launcher whose command this line continues: the line before ended in a backslash."""
        if self.open_command and self.open_command[0] == line_no - 1 and line.lstrip().startswith("-"):
            return self.open_command[1]
        return ""

    def feed(self, line_no: int, line: str) -> None:
        m = _ELASTIC_CONFIG.match(line)
        if m:   # torchrun's "Starting elastic_operator with launch configs:" block
            self.ctx.emit(LaunchOption, line_no, line, launcher="torchrun", name=m["name"], value=m["value"])
            return
        launcher = next((name for words, name in _LAUNCHERS if words in line), "") or self._continues(line_no, line)
        self.open_command = (line_no, launcher) if launcher and _CONTINUED.search(line) else None
        if not launcher or line.lstrip().startswith(("File ", "Traceback")):
            return
        body = line.split("#SBATCH", 1)[1] if "#SBATCH" in line else line
        for m in _FLAG.finditer(body):
            name = m["name"]
            if name in _KEEP:
                value = (m["value"] or "").strip("\"'")
                self.ctx.emit(LaunchOption, line_no, line, launcher=launcher, name=name.replace("-", "_"), value=value)
