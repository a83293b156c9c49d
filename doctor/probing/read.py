"""`python -m doctor.probing.read probes.MODULE:FUNCTION [ARGS]`: run one Python reader in its own process.

A reader returns the text of its artifact (JSON or tool-like text, parsed by the same probe offline)
or raises NotHere(reason). The live runner starts readers through this module so that a reader that
hangs (NVML on a broken GPU) is killed at its timeout like any other command.
"""
from __future__ import annotations

import importlib
import sys

from doctor.probing.live import SKIP_EXIT, NotHere


def main(argv: list[str]) -> int:
    if not argv or ":" not in argv[0] or not argv[0].startswith("probes."):
        print("usage: python -m doctor.probing.read probes.MODULE:FUNCTION [ARGS]", file=sys.stderr)
        return 2
    module, _, function = argv[0].partition(":")
    try:
        text = getattr(importlib.import_module(module), function)(argv[1:])
    except NotHere as why:
        print(str(why), file=sys.stderr)
        return SKIP_EXIT
    except Exception as err:  # noqa: BLE001 - one line for the runner's Failed reason, not a traceback
        print(f"{err.__class__.__name__}: {err}", file=sys.stderr)
        return 1
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
