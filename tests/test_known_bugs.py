"""rules/data/known_bugs.yaml: a checked table, and the rule that uses it on real-format text."""
from __future__ import annotations

from pathlib import Path

import pytest

from doctor.known_bugs import TABLE, table
from doctor.probing.lines import version_num

ROOT = Path(__file__).resolve().parents[1]


def test_every_entry_names_its_maintainers_statement_and_a_real_range() -> None:
    bugs = table()
    assert len(bugs) >= 3 and len({b.id for b in bugs}) == len(bugs)
    for bug in bugs:
        assert bug.references[0].startswith("https://") and bug.confirmed
        assert version_num(bug.affected_from) < version_num(bug.fixed), bug.id


def test_a_broken_entry_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "known_bugs.yaml"
    bad.write_text(TABLE.read_text().replace("references: [\"https://github.com/horovod/horovod/issues/2601\"]",
                                             "references: [\"see the forum\"]"))
    with pytest.raises(ValueError, match="nccl-2.8.3-alltoall-hang"):
        table.__wrapped__(bad)


def test_the_table_is_not_loaded_as_rules() -> None:
    from doctor.diagnose import rule_base
    rules, _ = rule_base()
    assert not [r for r in rules if "rules/data" in str(r.path).replace("\\", "/")]


def _known(text: str) -> list:
    from doctor.known_bugs import known_bugs
    from doctor.probing.contract import parse_lines
    from probes import LINE_PROBES
    facts = [f for probe in LINE_PROBES for f in parse_lines(probe, text, source="nccl.log", node="n1")]
    return known_bugs(facts)


BLACKWELL_LOG = ROOT / "fixtures" / "probes" / "nccl_log" / "nccl-2.25.1-rtx5090-shared-mem.log"


def test_blackwell_shared_memory_bug_read_from_the_nccl_info_line() -> None:
    """nccl-tests#287 (RTX 5090, NCCL 2.25.1): the INFO line is the sign; 2.26.2 fixed it."""
    found = _known(BLACKWELL_LOG.read_text())
    assert [(k.bug, k.version, k.fixed) for k in found][:1] == [("nccl-2.25-blackwell-shared-memory", "2.25.1", "2.26.2")]


def test_the_same_line_on_the_fixed_release_is_no_known_bug() -> None:
    text = BLACKWELL_LOG.read_text().replace("NCCL version 2.25.1+cuda12.8", "NCCL version 2.26.2+cuda12.8")
    assert not [k for k in _known(text) if k.bug == "nccl-2.25-blackwell-shared-memory"]


GID_WARN = ("pod-0:311:402 [0] NCCL INFO NCCL version {v}+cuda12.4\n"
            "pod-0:311:402 [0] transport/net_ib.cc:339 NCCL WARN NET/IB: read failed in ncclIbRoceGetVersionNum: "
            "Invalid argument\n")


@pytest.mark.parametrize(("version", "hit"), [("2.23.4", True), ("2.25.1", True), ("2.26.2", False)])
def test_roce_gid_type_read_bug_only_before_2_26_2(version: str, hit: bool) -> None:
    bugs = {k.bug for k in _known(GID_WARN.format(v=version))}
    assert ("nccl-2.21-roce-gid-type-read-einval" in bugs) is hit


def test_nccl_tests_header_gives_the_nccl_version_it_ran() -> None:
    """nccl-tests 2.13+ print 'nccl-library=22602' (NCCL_VERSION_CODE), the version a table entry is checked on."""
    from doctor.probing.contract import parse_lines
    from probes.nccl_tests import NcclTests
    text = (ROOT / "fixtures" / "probes" / "nccl_tests" / "nccl-tests-2.17-library-header.txt").read_text()
    versions = [f.version for f in parse_lines(NcclTests, text) if f.KIND == "nccl.version"]
    assert versions == ["2.26.2"]


def test_a_pip_list_gives_the_version_when_the_log_prints_none() -> None:
    """The nccl-tests#287 failure line without NCCL's version banner, and the `pip list` of that environment."""
    from doctor.known_bugs import known_bugs
    from doctor.probing.contract import parse_document, parse_lines
    from probes import LINE_PROBES
    from probes.pip_list import PipList
    log = "".join(line for line in BLACKWELL_LOG.read_text().splitlines(keepends=True) if "NCCL version" not in line)
    pip = ("Package                  Version\n------------------------ -----------\n"
           "nvidia-nccl-cu12         2.25.1\ntorch                    2.7.0+cu128\n")
    facts = [f for probe in LINE_PROBES for f in parse_lines(probe, log, source="nccl.log", node="n1")]
    assert not known_bugs(facts)
    facts += parse_document(PipList, pip, source="pip_list.txt", node="n1")
    assert [k.bug for k in known_bugs(facts)] == ["nccl-2.25-blackwell-shared-memory"]


def test_the_nccl_version_variable_of_an_env_dump_counts() -> None:
    """NGC/CUDA images export NCCL_VERSION=2.25.1-1 (env dump) when the log itself prints no version banner."""
    from doctor.known_bugs import known_bugs
    from doctor.probing.contract import parse_lines
    from probes import LINE_PROBES
    log = "".join(line for line in BLACKWELL_LOG.read_text().splitlines(keepends=True) if "NCCL version" not in line)
    env = "CUDA_VERSION=12.8.0\nNCCL_VERSION=2.25.1-1\nNV_LIBNCCL_PACKAGE=libnccl2=2.25.1-1+cuda12.8\n"
    facts = [f for text, name in ((log, "nccl.log"), (env, "env.txt")) for probe in LINE_PROBES
             for f in parse_lines(probe, text, source=name, node="n1")]
    assert [k.version for k in known_bugs(facts)] == ["2.25.1"]


# Real WARN lines of the threads behind the fourteenth stop's entries (nccl#1185, nccl#1176, nccl#957, nccl#573), and
# the others worded as NCCL's source prints them (socket.cc, topo.cc, xml.cc, proxy.cc) where no thread quoted one; each after the
# version banner NCCL prints at init, with the version inside the entry's range, then at the release that fixed it.
REAL_WARNS = {
    "nccl-2.20.3-uds-socket-name-collision": (
        "<host>:33:10589 [2] misc/ipcsocket.cc:57 NCCL WARN UDS: Binding to socket "
        "/tmp/nccl-socket-2-e647f8d8e15809a1 failed : Address already in use (98)", "2.20.3"),
    "nccl-2.19-bootstrap-barrier-tag-reorder": (
        "1: compute-st-p4de24xlarge-2:4827:6900 [4] bootstrap.cc:77 NCCL WARN Message truncated : received 256 bytes "
        "instead of 4", "2.19.3"),
    "nccl-2.18-devpeers-memcpy-invalid-argument": (
        "Fri Aug 11 12:31:45 2023[1,0]<stdout>:tomte401:1850301:1881341 [0] transport.cc:154 NCCL WARN Cuda failure "
        "'invalid argument'", "2.18.3"),
    "nccl-2.18-socket-accept-eintr": (
        "node-1:2211:2290 [0] misc/socket.cc:430 NCCL WARN socketTryAccept: Accept failed: Interrupted system call",
        "2.21.5"),
    "nccl-before-2.10.3-gpu-sysfs-path-missing": (    # nccl#573, WSL2
        "SHJS-PF4ZKYLL:92777:92889 [0] graph/xml.cc:332 NCCL WARN Could not find real path of "
        "/sys/class/pci_bus/0000:01/../../0000:01:00.0", "2.7.8"),
    "nccl-2.9.6-topo-file-dummy-pci-switch": (
        "ip-10-0-0-1:2211:2290 [0] graph/xml.cc:332 NCCL WARN Could not find real path of "
        "/sys/class/pci_bus/ffff:ff/../../ffff:ff:01.0", "2.9.6"),
    "nccl-before-2.12-remote-allocator-stray-request": (    # nccl#844, Azure ML
        "696b7901f9044f23b786795c0ef7257b000000:39:298 [0] bootstrap.cc:279 NCCL WARN [Rem Allocator] Allocation failed "
        "(segment 0, fd 130)", "2.10.3"),
    "nccl-2.12-proxy-service-poll-eintr": (
        "node-1:2211:2290 [0] proxy.cc:1119 NCCL WARN [Proxy Service] Poll failed with error 1", "2.14.3"),
    "nccl-2.24-nic-fusion-automerge-fatal": (
        "node-1:2211:2211 [0] graph/topo.cc:1350 NCCL WARN TOPO/NET : Tried merging multiple devices together and "
        "failed. Try setting NCCL_NET_MERGE_LEVEL=LOC", "2.25.1"),
}


@pytest.mark.parametrize("bug_id", sorted(REAL_WARNS))
def test_each_entry_fires_in_its_range_and_not_on_the_fixed_release(bug_id: str) -> None:
    line, version = REAL_WARNS[bug_id]
    fixed = next(b.fixed for b in table() if b.id == bug_id)
    banner = "node-1:2211:2211 [0] NCCL INFO NCCL version {v}+cuda12.2\n"
    assert bug_id in {k.bug for k in _known(banner.format(v=version) + line + "\n")}
    assert bug_id not in {k.bug for k in _known(banner.format(v=fixed) + line + "\n")}
    signature = next(b.signature for b in table() if b.id == bug_id)
    without = {k.bug: k.version for k in _known(line + "\n")}
    assert without.get(bug_id) == ("" if signature else None), "no version read: only a signature line names its bug"


def test_the_devpeers_entry_needs_its_own_lines_not_any_invalid_argument() -> None:
    """'Cuda failure 'invalid argument'' is common; on 2.18.x the entry takes only the lines of the two-step copy."""
    other = "h:1:2 [0] transport/nvls.cc:165 NCCL WARN Cuda failure 'invalid argument'\n"
    text = "h:1:2 [0] NCCL INFO NCCL version 2.18.5+cuda12.2\n" + other
    assert "nccl-2.18-devpeers-memcpy-invalid-argument" not in {k.bug for k in _known(text)}


def test_the_uds_name_collision_is_no_port_in_use(tmp_path: Path) -> None:
    """NCCL's 'UDS: Binding to socket /tmp/nccl-socket-... failed : Address already in use' (nccl#1185) is its own
    Unix-domain socket, not a TCP port another job holds: no port_in_use, the known bug of 2.20.3 instead."""
    from doctor.diagnose import diagnose_files
    log = tmp_path / "rank2.log"
    log.write_text("node-1:2211:2211 [0] NCCL INFO NCCL version 2.20.3+cuda12.2\n"
                   + REAL_WARNS["nccl-2.20.3-uds-socket-name-collision"][0] + "\n")
    causes = [d.cause for d in diagnose_files([str(log)]).diagnoses]
    assert causes[0] == "known_software_bug" and "port_in_use" not in causes


def test_a_signature_line_names_its_bug_without_a_version_and_not_against_one() -> None:
    """nccl#573's WARN alone: the fatal topology WARN only NCCL 2.4.2-2.9.9 print (INFO from 2.10.3 on) names the bug
    with no version known; beside a version out of the range, it names nothing."""
    line = REAL_WARNS["nccl-before-2.10.3-gpu-sysfs-path-missing"][0] + "\n"
    alone = [k for k in _known(line) if k.bug == "nccl-before-2.10.3-gpu-sysfs-path-missing"]
    assert [(k.version, k.affected_from, k.fixed) for k in alone] == [("", "2.4.2", "2.10.3")]
    later = "h:1:2 [0] NCCL INFO NCCL version 2.10.3+cuda11.4\n" + line
    assert "nccl-before-2.10.3-gpu-sysfs-path-missing" not in {k.bug for k in _known(later)}


def test_a_line_other_releases_print_needs_the_version() -> None:
    """The UDS bind line also means a real name collision in later releases: no signature, no bug without a version."""
    assert not _known(REAL_WARNS["nccl-2.20.3-uds-socket-name-collision"][0] + "\n")


def test_an_unknown_field_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "known_bugs.yaml"
    bad.write_text(TABLE.read_text().replace("    signature: true\n", "    signatur: true\n", 1))
    with pytest.raises(ValueError, match="unknown field"):
        table.__wrapped__(bad)


def test_the_remote_allocators_out_of_memory_is_its_bug_not_an_oom() -> None:
    """nccl#844: '[Rem Allocator] Allocation failed' then "Cuda failure 'out of memory'" while training goes on. NCCL's
    maintainer: the service thread read a stray connection's bytes as a size (nccl#555); only 2.8.3-2.11.x print it."""
    from doctor.diagnose import diagnose_files
    report = diagnose_files(["fixtures/cases/ksb-nccl-844-azureml-rem-allocator-pre212/input"])
    first = report.diagnoses[0]
    assert (first.cause, first.rules) == ("known_software_bug", ["BUG002"])
    assert first.confidence >= 0.5 and not first.cause.startswith("oom")
