"""`accelerate env` on two lab nodes whose accelerate config was copied from one to the other: both say machine_rank 0.

    LAB_ACCELERATE_PATH=DIR python -m lab.accelerate_env OUT_DIR     # OUT_DIR/node-{a,b}-accelerate-env.txt

DIR holds accelerate 0.28.0 and what it imports beyond torch (`pip install --no-deps --target DIR accelerate==0.28.0
numpy==1.26.4 psutil huggingface_hub==0.22.2 safetensors tqdm filelock fsspec requests urllib3 idna
charset-normalizer certifi typing-extensions packaging`), kept off the shared venv. Each node is a UTS namespace
with its own host name; each transcript is `uname -a; accelerate env` with that node's own HOME and config file.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

CONFIG = """compute_environment: LOCAL_MACHINE
distributed_type: MULTI_CPU
machine_rank: 0
main_process_ip: 10.213.0.1
main_process_port: 29500
main_training_function: main
mixed_precision: 'no'
num_machines: 2
num_processes: 2
rdzv_backend: static
same_network: true
use_cpu: true
"""
NODES = (("node-a", "gpu-node-a"), ("node-b", "gpu-node-b"))


def record(out: Path, site: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for label, host in NODES:
        with tempfile.TemporaryDirectory() as home:
            config = Path(home) / ".cache" / "huggingface" / "accelerate" / "default_config.yaml"
            config.parent.mkdir(parents=True)
            config.write_text(CONFIG)          # the same file on both machines: copied, machine_rank and all
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "PYTHONPATH": site, "LANG": "C.UTF-8"}
            script = f"uname -a; {sys.executable} -m accelerate.commands.accelerate_cli env"
            res = subprocess.run(["unshare", "--uts", "sh", "-c", f"hostname {host}; {script}"], env=env,
                                 capture_output=True, text=True, timeout=120)
            (out / f"{label}-accelerate-env.txt").write_text(res.stdout + res.stderr)
    (out / "command.txt").write_text("# on each node (host names gpu-node-a, gpu-node-b), the same "
                                     "~/.cache/huggingface/accelerate/default_config.yaml:\n"
                                     + "".join(f"#   {line}\n" for line in CONFIG.splitlines())
                                     + "uname -a; accelerate env\n")


def main(argv: list[str]) -> int:
    site = os.environ.get("LAB_ACCELERATE_PATH", "")
    if len(argv) != 1 or not site:
        print("usage: LAB_ACCELERATE_PATH=DIR python -m lab.accelerate_env OUT_DIR", file=sys.stderr)
        return 2
    record(Path(argv[0]), site)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
