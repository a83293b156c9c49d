"""`doctor scan` and `doctor collect` as a user runs them (real subprocesses, real tools of this machine).
GPUs and HCAs cannot exist here: where a test needs them, a fake nvidia-smi / ibv_devinfo on PATH prints a
real-format fixture (or hangs, like nvidia-smi on a GPU that fell off the bus)."""
from __future__ import annotations

import gzip
import json
import shutil
import tarfile
import time
from pathlib import Path

import pytest

from tests.conftest import REPO, run_doctor

FIXTURES = REPO / "fixtures" / "probes"
SECRETS = {"HF_TOKEN": "hf_Zq8yXv3LkPw2Nt6Rb9Jd4Hs7Fm1Gc5Ae0", "WANDB_API_KEY": "wandbkey-4f9a1c7e2b8d",
           "AWS_SESSION_X": "aws-value-31c8d2e7", "MY_SERVICE_PASSWORD": "pw-7c1e9b3a5d",
           "DATA_URL": "https://alice:s3cr3t-pa55@data.example.org/shards"}


def _tool(bindir: Path, name: str, body: str) -> None:
    path = bindir / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


def _env(bindir: Path, **extra: str) -> dict[str, str]:
    import os
    return {"PATH": f"{bindir}:{os.environ['PATH']}", **extra}


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _verdict(report: dict) -> list[tuple]:
    return [(d["cause"], d["confidence"], tuple(d["rules"]), d["title"], tuple((e["line"], e["text"]) for e in d["evidence"]))
            for d in report["diagnoses"]]


def test_scan_on_this_machine_finishes_and_names_what_it_skipped() -> None:
    started = time.monotonic()
    result = run_doctor("scan", "--json", timeout=60)
    elapsed = time.monotonic() - started
    assert result.returncode in (0, 1), result.stderr
    assert elapsed < 20, f"doctor scan took {elapsed:.1f}s"
    report = json.loads(result.stdout)
    probes = {p["name"]: p for p in report["scan"]["probes"]}
    assert len(probes) >= 15
    skipped = [p for p in probes.values() if p["status"] == "skipped"]
    assert skipped and all(p["reason"] for p in skipped)
    if not shutil.which("nvidia-smi"):
        assert probes["nvidia_smi_topo"] == {**probes["nvidia_smi_topo"], "status": "skipped",
                                             "reason": "nvidia-smi not found on PATH"}
        assert report["scan"]["gpus"] == 0 and report["scan"]["gpu_note"].startswith("no NVIDIA GPU seen on this node")
    assert {p["name"] for p in report["probes"]} >= set(probes)     # every probe outcome is a fact in the report


def test_a_hung_nvidia_smi_is_killed_at_its_timeout_and_reported_as_a_gpu_fault(tmp_path: Path) -> None:
    _tool(tmp_path, "nvidia-smi", "sleep 424242")
    started = time.monotonic()
    result = run_doctor("scan", "--json", "--only", "nvidia_smi_topo,nvidia_smi_query,nvlink_status", "--timeout", "2",
                        env=_env(tmp_path), timeout=60)
    elapsed = time.monotonic() - started
    assert result.returncode == 1, result.stderr
    assert elapsed < 15, f"scan waited {elapsed:.1f}s on a hung tool"
    report = json.loads(result.stdout)
    assert {p["name"]: p["status"] for p in report["scan"]["probes"]} == dict.fromkeys(
        ("nvidia_smi_topo", "nvidia_smi_query", "nvlink_status"), "failed")
    assert all(p["reason"].startswith("timed out after 2s") for p in report["scan"]["probes"])
    fault = next(d for d in report["diagnoses"] if d["cause"] == "gpu_hw_fault")
    assert "GPU010" in fault["rules"]   # the rule on a GPU tool that timed out
    deadline = time.monotonic() + 3
    while _processes_with("sleep 424242") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _processes_with("sleep 424242"), "the hung nvidia-smi survived the scan"


@pytest.fixture
def fake_gpu_node(tmp_path: Path) -> Path:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    topo = FIXTURES / "topo_matrix" / "dgx-h100-nv18-10nic-legend-tabs.txt"
    query = FIXTURES / "nvidia_smi_query" / "h100-sxm-2gpu-x8-thermal-ecc.txt"
    nvlink = FIXTURES / "nvlink_status" / "dgx-a100-12-links-one-inactive.txt"
    _tool(bindir, "nvidia-smi", f'case "$1 $2" in\n  "topo -m") cat "{topo}";;\n  "-q ") cat "{query}";;\n'
                                f'  "nvlink -s") cat "{nvlink}";;\n  *) echo "unexpected $*" >&2; exit 2;;\nesac')
    _tool(bindir, "ibv_devinfo", f'cat "{FIXTURES / "ibv_devinfo" / "roce-v2-gids-active-and-port-down.txt"}"')
    return bindir


def test_collect_then_analyze_gives_the_diagnoses_of_scan_and_no_secret(fake_gpu_node: Path, tmp_path: Path) -> None:
    env = _env(fake_gpu_node, NCCL_IB_HCA="mlx5_0:1,mlx5_5:1", NCCL_IB_GID_INDEX="1", **SECRETS)
    chosen = ("--skip", "versions,reachability")
    scan = run_doctor("scan", "--json", *chosen, env=env, timeout=90)
    assert scan.returncode == 1, scan.stderr
    bundle = tmp_path / "node.tar.gz"
    collect = run_doctor("collect", "-o", str(bundle), *chosen, env=env, timeout=90)
    assert collect.returncode == 0, collect.stderr
    assert f"wrote {bundle}" in collect.stderr
    analyze = run_doctor("analyze", str(bundle), "--json", timeout=90)
    assert analyze.returncode == 1, analyze.stderr
    scanned, analyzed = json.loads(scan.stdout), json.loads(analyze.stdout)
    assert _verdict(scanned) == _verdict(analyzed)
    causes = {d["cause"] for d in scanned["diagnoses"]}
    assert {"pcie_degraded", "gpu_hw_fault", "ib_hca_mismatch", "roce_gid_misconfig"} <= causes
    assert sorted((p["name"], p["status"]) for p in scanned["probes"]) == \
        sorted((p["name"], p["status"]) for p in analyzed["probes"])

    raw = bundle.read_bytes()
    with gzip.open(bundle) as fh:
        inflated = fh.read()
    for value in list(SECRETS.values()) + ["s3cr3t-pa55"]:
        assert value.encode() not in raw and value.encode() not in inflated, f"secret {value!r} is in the bundle"
    with tarfile.open(bundle) as tar:
        names = tar.getnames()
        manifest = json.load(tar.extractfile(next(n for n in names if n.endswith("doctor-manifest.json"))))
        environment = tar.extractfile(next(n for n in names if n.endswith("environment.txt"))).read().decode()
    assert "HF_TOKEN=<redacted>" in environment and "NCCL_IB_HCA=mlx5_0:1,mlx5_5:1" in environment
    entry = next(p for p in manifest["probes"] if p["probe"] == "nvidia_smi_topo")
    assert entry["argv"] == ["nvidia-smi", "topo", "-m"] and entry["exit"] == 0 and entry["file"] == "nvidia_smi_topo.txt"
    assert {"probe", "argv", "exit", "duration_s", "file", "status", "reason"} <= set(entry)


def test_collect_refuses_an_output_path_it_cannot_write(tmp_path: Path) -> None:
    result = run_doctor("collect", "-o", str(tmp_path / "no" / "such" / "dir" / "b.tar.gz"), "--only", "memlock")
    assert result.returncode == 2 and result.stderr.startswith("doctor: ") and "Traceback" not in result.stderr


def test_unknown_probe_name_is_a_usage_error() -> None:
    result = run_doctor("scan", "--only", "nvidia_smi_topo,warp_drive")
    assert result.returncode == 2 and "unknown probe(s): warp_drive" in result.stderr


def test_scan_text_keeps_the_extra_named_in_a_skip_reason() -> None:
    """rich markup once ate "[nvml]" from "pip install 'doctor[nvml]'", leaving an install hint that did nothing."""
    result = run_doctor("scan", "--only", "gpu_utilisation", timeout=60, env={"COLUMNS": "200"})
    assert result.returncode in (0, 1), result.stderr
    if "nvidia-ml-py is not installed" not in result.stdout:
        pytest.skip("nvidia-ml-py is installed here: the probe is not skipped for that reason")
    assert "pip install 'doctor[nvml]'" in result.stdout
