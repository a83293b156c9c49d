"""UCX's own version statements, verbatim: NIXL built for a newer UCP API than the libucp it loaded (nixl#386, held
out in batch GS; nixl#1023's nixlbench prints the bare message), and a worker address from another UCX release
(ucx#6675). A fatal transport line names no version."""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.ucx_version import UcxVersions

API_WARN = ("[1748179345.114806] [beaker:3019122:0]     ucp_context.c:2257 UCX  WARN  UCP API version is incompatible: "
            "required >= 1.20, actual 1.18.0 (loaded from /home/rshaw/local/ucx/lib/libucp.so.0)")
API_BARE = "UCP API version is incompatible: required >= 1.19, actual 1.16.0"
ADDRESS = ("[1618778295.702469] [jedi063:22469:0]        address.c:917  UCX  ERROR address version mismatch: "
           "expected 0, actual 12")
FATAL = "[1,383]<stderr>:[clx-orion-095:15382:0:15382]    ud_iface.c:781  Fatal: transport error: Endpoint timeout"


def read(text: str) -> list[tuple[str, str, str, str]]:
    return [(f.what, f.required, f.actual, f.library) for f in parse_lines(UcxVersions, text + "\n")]


def test_the_api_warning_with_the_library_it_loaded() -> None:
    assert read(API_WARN) == [("api", "1.20", "1.18.0", "/home/rshaw/local/ucx/lib/libucp.so.0")]


def test_the_bare_api_message() -> None:
    assert read(API_BARE) == [("api", "1.19", "1.16.0", "")]


def test_an_address_from_another_release() -> None:
    assert read(ADDRESS) == [("address", "0", "12", "")]


def test_a_fatal_transport_line_is_no_version_statement() -> None:
    assert read(FATAL) == []
