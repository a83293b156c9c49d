"""Hugging Face accelerate: `accelerate env` output and its config (default_config.yaml), as versions and options.

Sample input (`accelerate env`):
    - `Accelerate` version: 0.28.0
    - Platform: Linux-5.15.0-91-generic-x86_64-with-glibc2.35
    - PyTorch version (GPU?): 2.2.1+cu121 (True)
    - `Accelerate` default config:
    	- compute_environment: LOCAL_MACHINE
    	- distributed_type: MULTI_GPU
    	- num_processes: 16
    	- machine_rank: 0
    	- num_machines: 2
    	- main_process_ip: 10.0.0.1
    	- main_process_port: 29500
The same keys without the dash are the config file itself. accelerate's launch errors are torch's own (read by
the torch probes), printed under `stderr:` / `[rankN]:` prefixes.
"""
from __future__ import annotations


from doctor.facts.env import PackageVersion
from doctor.facts.launch import LaunchOption
from doctor.probing.contract import LineProbe
from doctor.probing.lines import version_num
from doctor.probing.regex import lazy_compile

_VERSION = lazy_compile(r"^\s*-\s*(?:`Accelerate`|`accelerate`) version:\s*(?P<v>\S+)")
_TORCH = lazy_compile(r"^\s*-\s*PyTorch version \((?:GPU|accelerator)\?\):\s*(?P<v>[\w.+\-]+)")
_OPTION = lazy_compile(r"^\s*(?:-\s*)?(?P<name>machine_rank|num_machines|num_processes|main_process_ip|main_process_port|"
                     r"distributed_type|gpu_ids|rdzv_backend|same_network)\s*:\s*(?P<value>[^\s#]+)")


class Accelerate(LineProbe):
    name = "accelerate"
    yields = ("pkg.version", "launch.option")
    triggers = ("version:", "PyTorch version (", "machine_rank", "num_machines", "num_processes", "main_process_",
                "distributed_type", "gpu_ids", "rdzv_backend", "same_network")

    def feed(self, line_no: int, line: str) -> None:
        if (m := _VERSION.search(line)):
            self._version(line_no, line, "accelerate", m["v"])
        elif (m := _TORCH.search(line)):
            self._version(line_no, line, "torch", m["v"])
        elif (m := _OPTION.match(line)) and m["value"] not in ("null", "None", "~"):
            self.ctx.emit(LaunchOption, line_no, line, launcher="accelerate", name=m["name"], value=m["value"].strip("'\""))

    def _version(self, n: int, line: str, name: str, version: str) -> None:
        self.ctx.emit(PackageVersion, n, line, name=name, version=version, version_num=version_num(version))
