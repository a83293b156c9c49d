"""Facts about a host's own configuration: interface MTUs and subnets, firmware, known bugs of the versions in use."""
from __future__ import annotations

from doctor.facts.base import Fact, fact


@fact
class NetLink(Fact):
    """One interface address as `ip addr` shows it, with the link's MTU. network: '10.42.0.0/24' ('' without IPv4)."""

    KIND = "net.link"
    name: str = ""
    mtu: int = -1
    address: str = ""
    network: str = ""
    virtual: bool = False


@fact
class MtuSkew(Fact):
    """Nodes on one subnet whose interfaces disagree on MTU (aggregation): this node's MTU against the others'."""

    KIND = "net.mtu_skew"
    network: str = ""
    interface: str = ""
    mtu: int = -1
    others: str = ""               # 'gpu-node-b eth0 1500, ...'


@fact
class RouteConflict(Fact):
    """Two or more interfaces of one node with addresses in one subnet (aggregation)."""

    KIND = "net.route_conflict"
    network: str = ""
    interfaces: str = ""           # 'eth1,eth0' in the order ip addr lists them


@fact
class Firmware(Fact):
    """The firmware of one adapter: ibv_devinfo fw_ver, ibstat 'Firmware version', ethtool -i firmware-version."""

    KIND = "hw.firmware"
    device: str = ""
    board: str = ""                # board_id / CA type / driver: what makes two adapters comparable
    version: str = ""


@fact
class FirmwareSkew(Fact):
    """Adapters of one board type whose firmware differs across nodes (aggregation)."""

    KIND = "hw.firmware_skew"
    device: str = ""
    board: str = ""
    version: str = ""
    others: str = ""               # 'gpu-node-b 28.39.1002, ...'


@fact
class FirmwareWarning(Fact):
    """A NIC driver says in the kernel log that the adapter's firmware is too old for it (dmesg)."""

    KIND = "hw.firmware_warning"
    device: str = ""               # the PCI address the driver names
    driver: str = ""               # mlx4_core, mlx4_en, mlx5_core, ice, i40e, ...
    message: str = ""


@fact
class FirmwareFault(Fact):
    """A NIC driver says in the kernel log that the adapter's firmware stopped answering it (dmesg): mlx5's health
    poll found the firmware's health counter frozen, or a firmware command timed out."""

    KIND = "hw.firmware_fault"
    device: str = ""               # the PCI address the driver names
    driver: str = ""               # mlx5_core
    message: str = ""


@fact
class KnownBug(Fact):
    """A version in the input lies in the affected range of an entry of rules/data/known_bugs.yaml and its
    symptom line appears (aggregation, doctor/known_bugs.py)."""

    KIND = "version.known_bug"
    bug: str = ""                  # the table's id
    component: str = ""            # nccl | torch | driver
    version: str = ""              # "" where the input names no version and the entry's line is a signature
    affected_from: str = ""
    fixed: str = ""
    summary: str = ""
    workaround: str = ""
    reference: str = ""
