"""The GPU models environment reports name (collect_env, `nvidia-smi -L`, the nvidia-smi table, nvbandwidth,
Lightning's report), read from the case base's real inputs: the model is what says consumer card or datacenter part.
Before, only nccl-tests' device lines, `nvidia-smi -q` and `nvlink -s` named a GPU, so a collect_env of four RTX 4090s
carried no consumer_gpu context at all."""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_lines
from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
from probes.gpu_models import GpuModels
from doctor.probing.offline import gather_files

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def models(case: str, name: str) -> list[tuple[int, str, bool]]:
    facts = gather_files([str(CASES / case / "input" / name)], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts
    return sorted((f.index, f.name, f.consumer) for f in facts if f.KIND == "gpu.device")


def test_collect_env_lists_each_gpu_on_its_own_line() -> None:
    assert models("nvlink-vllm-4238", "collect_env.txt") == [(0, "NVIDIA A100 80GB PCIe", False),
                                                             (1, "NVIDIA A100 80GB PCIe", False)]


def test_collect_env_names_one_gpu_on_the_heading_line() -> None:
    assert models("healthy-doctr-pr81-collect-env-rtx2070", "collect_env.txt") == [
        (0, "GeForce RTX 2070 with Max-Q Design", True)]


def test_lightning_report_lists_models_under_gpu() -> None:
    assert models("p2p-lightning-18221", "lightning_env.txt") == [(i, "NVIDIA GeForce RTX 4090", True) for i in range(4)]


def test_nvidia_smi_table_name_rows() -> None:
    assert models("healthy-4xrtx3090-workstation-smi", "nvidia_smi.txt") == [(i, "GeForce RTX 3090", True)
                                                                               for i in range(4)]
    assert models("healthy-docker-pytorch-27-host-v100-smi", "nvidia-smi.txt")[0] == (0, "Tesla V100-PCIE...", False)


def test_nvidia_smi_list_behind_a_shell_prefix_and_nvbandwidth_devices() -> None:
    assert models("ksb-pyxis-73-gpus-per-task-restrict-dev", "srun-host.txt") == [(0, "NVIDIA RTX A5000", False)]
    assert models("p2p-nvbandwidth-13-2080ti-d2d-waived", "nvbandwidth.log") == [(0, "NVIDIA GeForce RTX 2080 Ti", True),
                                                                                (1, "NVIDIA GeForce RTX 2080 Ti", True)]


def test_a_status_word_after_gpu_n_is_no_model() -> None:
    text = "GPU 0: busy\nGPU 1: 87% utilised\n- GPU:\n- available: True\n"
    assert [f for f in parse_lines(GpuModels, text) if f.KIND == "gpu.device"] == []
