"""The offline path reads a doctor manifest: node names, forced parsers, probe outcomes; a hostile one is inert."""
from __future__ import annotations

import json
from pathlib import Path

from doctor.diagnose import diagnose_files
from doctor.facts.status import ProbeStatus
from doctor.probing.offline import gather_files
from probes import DOCUMENT_PROBES, LINE_PROBES


def _bundle(folder: Path, entries: list[dict], files: dict[str, str], node: str = "gpu-node-3", live: bool = False) -> Path:
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    manifest = {"schema": "doctor.bundle/1", "node": node, "live": live, "probes": entries}
    (folder / "doctor-manifest.json").write_text(json.dumps(manifest))
    return folder


def test_manifest_names_the_node_forces_the_parser_and_reports_probe_outcomes(tmp_path: Path) -> None:
    short_list = ("nvidia 56717312 2 nvidia_uvm, Live 0x0000000000000000 (POE)\n"      # two modules: too few to sniff
                  "mlx5_ib 405504 0 - Live 0x0000000000000000 (OE)\n")
    folder = _bundle(tmp_path / "b", [
        {"probe": "kernel_modules", "parser": "kernel_modules", "argv": ["cat", "/proc/modules"], "status": "ok",
         "file": "out-17.txt"},
        {"probe": "nvidia_smi_topo", "parser": "topo_matrix", "status": "failed", "reason": "timed out after 15s"}],
        {"out-17.txt": short_list})
    gathered = gather_files([str(folder)], LINE_PROBES, DOCUMENT_PROBES)
    modules = next(f for f in gathered.facts if f.KIND == "kernel.modules")
    assert (modules.node, modules.count, modules.nvidia, modules.peermem) == ("gpu-node-3", 2, True, False)
    assert modules.origin.source == f"{folder}/out-17.txt"
    statuses = {f.probe: (f.status, f.node) for f in gathered.facts if isinstance(f, ProbeStatus)}
    assert statuses == {"kernel_modules": ("ok", "gpu-node-3"), "nvidia_smi_topo": ("failed", "gpu-node-3")}
    assert ["doctor_manifest"] in [i.kinds for i in gathered.inputs]


def test_live_manifest_names_evidence_after_the_command(tmp_path: Path) -> None:
    folder = _bundle(tmp_path / "b", [{"probe": "memlock", "parser": "memlock_value", "command": "sh -c ulimit -l",
                                       "status": "ok", "file": "memlock.txt"}],
                     {"memlock.txt": "8\n",     # a finite memlock matters only where NCCL uses an RDMA device (IB002)
                      "nccl.log": "gpu-node-3:11:11 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.3<0>\n"},
                     live=True)
    report = diagnose_files([str(folder)])
    evidence = report.diagnoses[0].evidence[0]
    assert (evidence.source, evidence.line) == ("sh -c ulimit -l", 1)


def test_hostile_manifest_is_inert(tmp_path: Path) -> None:
    folder = _bundle(tmp_path / "b", [
        {"probe": "../../etc", "parser": "topo_matrix", "status": "ok", "file": "../../../etc/passwd"},
        {"probe": "x", "status": "exploded", "file": 5}, "not a mapping", {"probe": "y", "file": "a/b.txt"}],
        {"notes.txt": "nothing to see\n"}, node="evil/../node name;rm -rf")
    gathered = gather_files([str(folder)], LINE_PROBES, DOCUMENT_PROBES)
    statuses = [f for f in gathered.facts if isinstance(f, ProbeStatus) and f.probe != "input"]
    assert [(f.probe, f.status) for f in statuses] == [(".._.._etc", "ok")]
    assert statuses[0].node == "evil_.._node_name_rm_-rf"
    assert {i.path for i in gathered.inputs} == {f"{folder}/doctor-manifest.json", f"{folder}/notes.txt"}


def test_a_json_file_that_is_not_a_doctor_manifest_is_just_a_file(tmp_path: Path) -> None:
    (tmp_path / "doctor-manifest.json").write_text('{"schema": "something/else", "probes": []}')
    gathered = gather_files([str(tmp_path)], LINE_PROBES, DOCUMENT_PROBES)
    assert [i.kinds for i in gathered.inputs] != [["doctor_manifest"]]
