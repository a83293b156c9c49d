"""`python -m doctor.probing.hsgrep PATTERNS FILE`: grep -n -F with Hyperscan, in a child process.

Prints `N:line` for every line of FILE holding one of the literals in PATTERNS (one per line), the
format GNU grep -n prints, lines cut to a window around their trigger as the in-process scan does.
Run as a child so that scanning one core's worth runs beside the parent parsing the candidates on
the other, as with grep; in process, the two would take turns.
"""
from __future__ import annotations

import sys
from pathlib import Path

from doctor.probing.finders import hyperscan_finder
from doctor.probing.inputs import InputFile
from doctor.probing.scan import _python_lines


def main(argv: list[str]) -> int:
    patterns, path = Path(argv[0]), Path(argv[1])
    words = tuple(w for w in patterns.read_text(encoding="utf-8").split("\n") if w)
    find = hyperscan_finder(words)
    if find is None:
        print("hsgrep: the hyperscan module is not installed", file=sys.stderr)
        return 2
    out = sys.stdout.buffer
    for number, line in _python_lines(InputFile(path, str(path), ""), find):
        out.write(b"%d:%s\n" % (number, line.encode("utf-8")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
