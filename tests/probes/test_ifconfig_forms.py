"""ifconfig in its three forms, read like `ip addr` (issue 12, held-out batch ND): real text from the case base.

- net-tools 2.x ("ens5: flags=4163<...>  mtu 9001" / "inet 172.31.65.244  netmask 255.255.224.0"): the Ray Train FAQ;
- net-tools 1.x ("eth1      Link encap:Ethernet" / "inet addr:... Mask:..." / "MTU:1500" after the addresses), under a
  "[root@host ~]# /sbin/ifconfig" prompt that starts with "[" like `ip -j addr`'s JSON: Open MPI users list 2007/11;
- macOS ("en0: flags=8822<...> mtu 1500" / "inet 192.168.2.1 netmask 0xffffff00"): Open MPI devel list 2009/04, where
  an inactive wired port and the Wi-Fi held addresses in one subnet (route_conflict)."""
from __future__ import annotations

from pathlib import Path

from doctor.probing.contract import parse_document
from probes.net_interfaces import NetInterfaces

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


def _links(case: str) -> list[tuple[str, str, str, int]]:
    text = (CASES / case / "input" / "ifconfig.txt").read_text()
    assert NetInterfaces.sniff(text[:8192])
    return [(f.name, f.address, f.network, f.mtu) for f in parse_document(NetInterfaces, text, node="n")
            if f.KIND == "net.link"]


def test_net_tools_2x() -> None:
    assert _links("wrongif-ray-docs-train-faq-ens5-docker0-veth") == [
        ("docker0", "172.17.0.1", "172.17.0.0/16", 1500), ("ens5", "172.31.65.244", "172.31.64.0/19", 9001)]


def test_net_tools_1x_under_a_root_prompt_with_the_mtu_after_the_addresses() -> None:
    links = _links("wrong-ifname-ompi-users-2007-4547-oob-eth0-first-econnaborted")
    assert ("eth0", "192.168.2.14", "192.168.2.0/24", 1500) in links
    assert ("eth1", "192.168.1.14", "192.168.1.0/24", 1500) in links
    aliases = _links("wrong-ifname-ompi-users-2006-0876-oob-eth0-firewalled-errno110")
    assert [(n, net) for n, _, net, _ in aliases] == [("eth0", "1.0.0.0/9"), ("eth1", "1.128.0.0/9"),
                                                      ("eth2:2", "129.66.9.0/24")]


def test_macos_hex_netmask_and_two_interfaces_in_one_subnet() -> None:
    links = _links("route-conflict-ompi-devel-2009-5969-en0-wifi-same-subnet-slow-start")
    assert [(n, a, net) for n, a, net, _ in links] == [("en0", "192.168.2.1", "192.168.2.0/24"),
                                                       ("en1", "192.168.2.2", "192.168.2.0/24")]


def test_a_transcript_starting_with_a_bracket_is_not_ip_json() -> None:
    text = "[root@n1 ~]# ip -j addr\n"
    assert parse_document(NetInterfaces, text, node="n") == []
