"""Highlight a quoted log line: what failed, the numbers, the addresses and paths."""
from __future__ import annotations

import re

from textual.content import Content

# (pattern, style); earlier patterns win where they overlap
LINE_STYLES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(?:WARN|ERROR|FATAL|Error|error|failed|Failed|refused|timed out|Timeout|No space left on device"
                r"|out of memory|OutOfMemoryError|unhandled \w+ error|not found|cannot|denied)\b"), "bold $text-error"),
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:[KMGT]i?B|ms|s)\b"), "$text-warning"),
    (re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b|\(\S+, \d+\)"), "$text-accent"),
    (re.compile(r"(?:/[\w.\-]+){2,}"), "italic $text-secondary"),
)


def highlight_line(text: str) -> Content:
    content = Content(text)
    taken: list[tuple[int, int]] = []
    for pattern, style in LINE_STYLES:
        for m in pattern.finditer(text):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            taken.append((m.start(), m.end()))
            content = content.stylize(style, m.start(), m.end())
    return content


def code_spans(text: str, style: str = "bold $text-success") -> Content:
    """A rule's prose with its `code` spans set apart (the backticks dropped)."""
    parts = text.split("`")
    if len(parts) % 2 == 0:          # an unpaired backtick: show the text as it is
        return Content(text)
    return Content.assemble(*((part, style) if i % 2 else part for i, part in enumerate(parts)))


def first_command(text: str) -> str:
    """The first `code` span of a fix step (what to paste into a shell), else the whole step."""
    parts = text.split("`")
    return parts[1] if len(parts) >= 3 and parts[1].strip() else text
