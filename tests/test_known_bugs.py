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
