"""Environment variables that steer distributed training, wherever they show up.

Sample input (an env dump, a command line, NCCL's own echo, a pod spec):
    NCCL_DEBUG=INFO NCCL_IB_DISABLE=0 NCCL_IB_HCA=mlx5_0,mlx5_1 NCCL_SOCKET_IFNAME=bond0
    export GLOO_SOCKET_IFNAME=eth0
    node1:123:456 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to LOC
    - name: NCCL_IB_HCA
      value: "mlx5_0:1,mlx5_1:1"
"""
from __future__ import annotations

import re

from doctor.facts.env import EnvVar
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.lines import without_colour
from doctor.probing.regex import lazy_compile

PREFIXES = ("NCCL_", "GLOO_", "TORCH_", "TORCHELASTIC_", "PYTORCH_", "MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE",
            "LOCAL_RANK", "LOCAL_WORLD_SIZE", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "UCX_", "OMPI_MCA_", "FI_",
            "HOROVOD_", "TF_CONFIG", "SLURM_GPUS", "SLURM_NTASKS", "LD_LIBRARY_PATH")
_NAME = r"(?P<name>(?:NCCL|GLOO|TORCH|TORCHELASTIC|PYTORCH|UCX|OMPI_MCA|FI|HOROVOD)_\w+|MASTER_ADDR|MASTER_PORT|WORLD_SIZE|LOCAL_RANK|LOCAL_WORLD_SIZE|CUDA_VISIBLE_DEVICES|CUDA_DEVICE_ORDER|TF_CONFIG|SLURM_GPUS\w*|SLURM_NTASKS\w*|LD_LIBRARY_PATH)"
_ASSIGN = lazy_compile(r"(?:^|[\s;'\"(,{])(?:export\s+|set\s+)?" + _NAME + r"\s*=\s*(?P<value>\"[^\"]*\"|'[^']*'|[^\s;)}]*)")
# NCCL's echo of a setting: "NCCL_P2P_LEVEL set by environment to LOC" (INFO), and the clause NCCL appends to
# "no algorithm/protocol available for function ..." when one was forced: "NCCL_ALGO was set to NVLS."
_NCCL_ECHO = lazy_compile(r"\b" + _NAME + r" (?:was )?set (?:by environment )?(?:to )(?P<value>\S+?)\.?(?:\s|$)")
_NCCL_ECHO_BARE = lazy_compile(r"\b" + _NAME + r" set by environ")
# aws-ofi-nccl applying its platform defaults to the environment ("NET/OFI Adding NCCL_PROTO=simple to environment";
# 1.13's wording: "NET/OFI Setting NCCL_PROTO to \"simple\"", AWS's BioNeMo guidance log, held-out batch OC): a setting
# the network plugin chose for the provider, not one the user forced
_PLUGIN_SET = (lazy_compile(r"NET/OFI Adding " + _NAME + r"=(?P<value>\S*) to environment"),
               lazy_compile(r"NET/OFI Setting " + _NAME + r"(?: environment variable)? to \"?(?P<value>[^\"\s]*)"))
_YAML_NAME = lazy_compile(r"-\s*name:\s*[\"']?" + _NAME + r"[\"']?\s*$")
_YAML_VALUE = lazy_compile(r"^\s*value:\s*[\"']?(?P<value>[^\"']*)[\"']?\s*$")
# advice, not a setting: PyTorch's OOM message ends "try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"
# and NCCL's own error text "(run with NCCL_DEBUG=INFO for details)"
_ADVICE = lazy_compile(r"(?i)(?:\b(?:try|consider|please|you (?:can|could|may|should))\s+(?:setting|to set|set)|\(run with)\s+$")
SECRET = lazy_compile(r"(TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIAL)", re.I)


class EnvVars(LineProbe):
    name = "env_vars"
    yields = ("env.var",)
    triggers = PREFIXES + ("value:",)

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.pending: tuple[int, str, str] | None = None   # a pod-spec "- name: X" waiting for its value line
        self.plugin_set: set[tuple[str, str]] = set()      # (name, value) the network plugin put into the environment

    def feed(self, line_no: int, line: str) -> None:
        line = without_colour(line)   # a terminal's reset code after "NCCL_PROTO=simple" is not part of the value
        if self.pending:
            n, name_line, name = self.pending
            self.pending = None
            m = _YAML_VALUE.match(line)
            if m and line_no == n + 1:
                self._emit(n, name_line, name, m["value"], "pod_spec")
                return
        m = _YAML_NAME.search(line)
        if m:
            self.pending = (line_no, line, m["name"])
            return
        if "NET/OFI " in line and (m := _plugin_setting(line)):
            self._emit(line_no, line, m["name"], m["value"], "plugin")
            self.plugin_set.add((m["name"], m["value"]))
            return
        echoed = False
        for m in _NCCL_ECHO.finditer(line):
            # NCCL echoing "NCCL_PROTO set by environment to simple" after the plugin added it: still the plugin's
            source = "plugin" if (m["name"], m["value"]) in self.plugin_set else "nccl_log"
            self._emit(line_no, line, m["name"], m["value"], source)
            echoed = True
        if not echoed:
            for m in _NCCL_ECHO_BARE.finditer(line):
                self._emit(line_no, line, m["name"], "", "nccl_log")
                echoed = True
        if echoed:
            return
        if line.lstrip().startswith("#"):
            return   # a commented-out assignment ("#export NCCL_SHM_DISABLE=1") is not set
        for m in _ASSIGN.finditer(line):
            if _ADVICE.search(line, 0, m.start("name")):
                continue   # a message suggesting a setting has not set it
            self._emit(line_no, line, m["name"], m["value"].strip("\"'"), "environ")

    def _emit(self, n: int, line: str, name: str, value: str, source: str) -> None:
        if SECRET.search(name):
            value = "<redacted>"
        self.ctx.emit(EnvVar, n, line, name=name, value=value, source=source)


def _plugin_setting(line: str) -> re.Match[str] | None:
    """aws-ofi-nccl putting one of its defaults into the environment, in either release's wording."""
    return next((m for pattern in _PLUGIN_SET if (m := pattern.search(line))), None)
