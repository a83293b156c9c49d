"""UCX's own version statements: the program and the libucp it loaded, or two peers, run different UCX releases.

ucp_context.c warns when the program was compiled against a newer UCP API than the library that answered, and
address.c fails when a worker address packed by one UCX release is unpacked by another. Sample input:
    [1748179345.114806] [beaker:3019122:0]     ucp_context.c:2257 UCX  WARN  UCP API version is incompatible: required >= 1.20, actual 1.18.0 (loaded from /home/u/ucx/lib/libucp.so.0)
    [1618778295.702469] [jedi063:22469:0]        address.c:917  UCX  ERROR address version mismatch: expected 0, actual 12
"""
from __future__ import annotations

from doctor.facts.env import UcxVersionReport
from doctor.probing.contract import LineProbe
from doctor.probing.regex import lazy_compile

_API = lazy_compile(r"UCP API version is incompatible: required >= (?P<required>[\d.]+), actual (?P<actual>[\d.]+)"
                    r"(?: \(loaded from (?P<library>[^)\s]{1,300})\))?")
_ADDRESS = lazy_compile(r"address version mismatch: expected (?P<required>\d+), actual (?P<actual>\d+)")


class UcxVersions(LineProbe):
    name = "ucx_version"
    yields = ("ucx.version_mismatch",)
    triggers = ("UCP API version is incompatible", "address version mismatch")

    def feed(self, line_no: int, line: str) -> None:
        if (m := _API.search(line)):
            self.ctx.emit(UcxVersionReport, line_no, line, what="api", required=m["required"], actual=m["actual"],
                          library=m["library"] or "")
        elif (m := _ADDRESS.search(line)):
            self.ctx.emit(UcxVersionReport, line_no, line, what="address", required=m["required"], actual=m["actual"])
