"""UCX transports' fatal lines, in UCX's own wording: the transport source file, 'Fatal:', the message.

UCX prints a fatal error of a transport with the file and line that raised it; the UD transport's peer timeout
reads 'transport error: Endpoint timeout' from ud_iface.c in older releases. Each line gives the transport
(ud, rc, dc from the file name) and whether the message is a timeout.

Sample input:
    [1,383]<stderr>:[clx-orion-095:15382:0:15382]    ud_iface.c:781  Fatal: transport error: Endpoint timeout
"""
from __future__ import annotations

from doctor.facts.fabric import UcxFatal
from doctor.probing.contract import LineProbe
from doctor.probing.regex import lazy_compile

_FATAL = lazy_compile(r"\b(?P<file>(?P<tl>ud|rc|dc)_\w+)\.c:\d+\s+Fatal:\s*(?P<message>.+?)\s*$")
_TIMEOUT = lazy_compile(r"timed?\s*out|timeout")


class UcxFatalLines(LineProbe):
    name = "ucx_fatal"
    yields = ("ucx.fatal",)
    triggers = ("Fatal:",)

    def feed(self, line_no: int, line: str) -> None:
        m = _FATAL.search(line)
        if m:
            message = m["message"]
            self.ctx.emit(UcxFatal, line_no, line, transport=m["tl"], message=message[:200],
                          timeout=bool(_TIMEOUT.search(message.lower())))
