"""`python -m doctor.probing.hsgrep < JOB`: one byte range of a big log scanned with Hyperscan, in a child process.

JOB (JSON on stdin): {"path", "start", "end", "words", "sample_words", "windows"}.
Prints, for the lines that start in [start, end), numbered from 1 within the range:
    N:line     a line holding one of `words`
    sN:line    a line of a sample window holding one of `sample_words`
    #C         last, once the range is done: the newlines it held (the next range's numbering starts after them)
Several run side by side on disjoint ranges (parallel.py), each on its own core; without the closing
#C line the parent knows the worker failed and scans the range itself. Imports stay few: this
starts once per range.
"""
from __future__ import annotations

import json
import sys

from doctor.probing.blocks import Sampling, scan_range
from doctor.probing.finders import hyperscan_finder


def main() -> int:
    job = json.load(sys.stdin)
    find = hyperscan_finder(tuple(job["words"]))
    sample_find = hyperscan_finder(tuple(job["sample_words"])) if job["sample_words"] else None
    if find is None or (job["sample_words"] and sample_find is None):
        print("hsgrep: the hyperscan module is not installed", file=sys.stderr)
        return 2
    sampling = Sampling(sample_find, tuple((a, b) for a, b in job["windows"])) if sample_find else None
    out = sys.stdout.buffer
    with open(job["path"], "rb") as fh:
        scan = scan_range(fh, job["start"], job["end"], find, sampling)
        try:
            while True:
                hit = next(scan)
                out.write(b"%s%d:%s\n" % (b"s" if hit.sampled else b"", hit.line_no, hit.text))
        except StopIteration as done:
            out.write(b"#%d\n" % done.value)
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
