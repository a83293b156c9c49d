"""probes/oom.py: `during` = "state_dict" when the OOM is FSDP's warning that state_dict() could not clone a gathered
(unsharded) parameter, the sign MEM720 reads. Lines are verbatim: tatsu-lab/stanford_alpaca#65
(fixtures/logs/fsdp-state-dict-clone-oom-alpaca-65.log: real text, not a case, its fix being a commenter's) and lm-sys/FastChat#256 (a paste that starts mid-name,
the newer _state_dict_utils.py wording; thread seen, not a case).
"""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_lines
from probes.oom import OomMessages

LOGS = Path(__file__).resolve().parents[2] / "fixtures" / "logs"

FASTCHAT_256 = (
    "ayers.39.mlp.gate_proj.weight on rank 1. This may mean that this state_dict entry could point to invalid memory "
    "regions after returning from state_dict() call if this parameter is managed by FSDP. Please check clone "
    "implementation of _fsdp_wrapped_module.model.layers.39.mlp.gate_proj.weight. Error: CUDA out of memory. Tried to "
    "allocate 270.00 MiB (GPU 1; 79.35 GiB total capacity; 76.93 GiB already allocated; 72.19 MiB free; 77.38 GiB "
    "reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid "
    "fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF\n")
FORWARD = ("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.93 GiB total capacity; 7.13 GiB "
           "already allocated; 3.06 MiB free; 186.50 KiB cached)\n")


def _events(text: str):
    return [f for f in parse_lines(OomMessages, text) if f.KIND == "oom.event"]


def test_fsdp_failed_clone_while_gathering_the_state_dict() -> None:
    text = (LOGS / "fsdp-state-dict-clone-oom-alpaca-65.log").read_text(encoding="utf-8")
    (event,) = _events(text)
    assert (event.during, event.device) == ("state_dict", 1)
    (event,) = _events(FASTCHAT_256)
    assert (event.during, event.device) == ("state_dict", 1)


def test_an_oom_in_the_step_is_not_a_state_dict_oom() -> None:
    (event,) = _events(FORWARD)
    assert event.during == ""
