"""RoCE GID tables as users paste them: show_gids rows (probes/show_gids.py) and ibv_devinfo -v GID lines without
their type (probes/ib_devinfo.py), on real inputs of fixtures/cases."""
from __future__ import annotations

from pathlib import Path

from doctor.probing.offline import gather_files

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def gids(path: Path) -> list:
    from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
    return [f for f in gather_files([str(path)], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts if f.KIND == "ib.gid"]


def test_show_gids_rows_carry_index_version_and_ipv4() -> None:
    table = {(g.device, g.index): g for g in gids(CASES / "roce-gid-nccl-1538" / "input")}
    assert len(table) == 14
    v2 = table[("mlx5_0", 7)]
    assert (v2.port, v2.version, v2.ipv4) == (1, "v2", "10.156.129.132")
    local = table[("mlx5_0", 5)]
    assert local.version == "v2" and local.ipv4 == "" and local.gid.startswith("fe80")


def test_show_gids_after_a_shell_prompt_names_the_pod() -> None:
    found = gids(CASES / "bug-nccl-1573-container-gid" / "input")
    assert found and {g.node for g in found} == {"test-macvlan-pod-2"}


def test_untyped_gid_lines_are_roce_by_their_ipv4_mapped_value() -> None:
    found = gids(CASES / "ucx-7785-roce-gid-tables-differ" / "input" / "gids_mu01.txt")
    assert [(g.index, g.ipv4) for g in found] == [(2, "12.12.12.100"), (3, "12.12.12.100")]


def test_an_infiniband_gid_table_is_not_read_as_roce(tmp_path: Path) -> None:
    ib = CASES.parent / "probes" / "ibv_devinfo" / "ib-ndr-active-and-init-no-sm.txt"     # NDR InfiniBand, ibv_devinfo -v
    table = tmp_path / "gids.txt"      # its GID lines pasted alone: subnet prefix + port GUID, never IPv4-mapped
    table.write_text("".join(x for x in ib.read_text(encoding="utf-8").splitlines(keepends=True) if "GID[" in x),
                     encoding="utf-8")
    assert table.read_text(encoding="utf-8").count("GID[") == 2
    assert gids(table) == []
