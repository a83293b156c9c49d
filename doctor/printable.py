"""Text from an input made safe to show: every control character written out as an escape (ESC as \\x1b).

A log line can hold `ESC ] 0 ; title BEL` (retitles the terminal) or `ESC [ 2 J` (clears it), and a file or archive
member name can hold ESC or a newline. Whatever an upload says reaches a terminal only through printable(): the
parsers' facts and evidence (doctor/probing/contract.py), the inputs list, error lines (doctor/cli) and the text
report; the TUI shows the same facts and evidence.
"""
from __future__ import annotations

# C0 controls, DEL and C1 controls; a tab stays a tab.
_ESCAPES = {code: f"\\x{code:02x}" for code in (*range(0x00, 0x20), *range(0x7F, 0xA0)) if code != 0x09}
_ESCAPES.update({0x0A: "\\n", 0x0D: "\\r"})
# Unicode bidirectional overrides and isolates reorder what is shown ("Trojan Source").
_ESCAPES.update({code: f"\\u{code:04x}" for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))})


def printable(text: str) -> str:
    """text with every control character escaped; unchanged (the same object) when it holds none."""
    return text if text.isprintable() else text.translate(_ESCAPES)
