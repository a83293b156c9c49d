"""`doctor collect -o bundle.tar.gz`: every raw probe output of this node with its origin and a manifest,
the environment with secrets redacted, packed for upload. `doctor analyze bundle.tar.gz` reads it anywhere."""
from __future__ import annotations

import argparse
import os
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from doctor.cli.exit_codes import ExitCode
from doctor.cli.node_options import add_probe_options, gather, list_probes
from doctor.errors import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", metavar="FILE.tar.gz", help="where to write the bundle "
                        "(default: doctor-HOST-YYYYmmdd-HHMMSS.tar.gz here)")
    add_probe_options(parser)


def run(args: argparse.Namespace) -> int:
    if args.list:
        return list_probes()
    from doctor.probing.bundle import write_dir
    from doctor.probing.node import node_name
    from probes.environment import redact_text
    node = node_name()
    output = Path(args.output or f"doctor-{node}-{time.strftime('%Y%m%d-%H%M%S')}.tar.gz")
    if output.is_dir() or not output.parent.is_dir():
        raise UsageError(f"{output}: not a writable file path (the folder must exist)")
    results = gather(args)
    stem = f"doctor-{node}"
    with tempfile.TemporaryDirectory(prefix="doctor-collect-") as tmp:
        write_dir(results, Path(tmp) / stem, node, live=False, redact=redact_text)
        _write_bundle(Path(tmp) / stem, stem, output)
    counts = {s: sum(r.status == s for r in results) for s in ("ok", "skipped", "failed")}
    print(f"doctor: wrote {output} ({counts['ok']} outputs, {counts['skipped']} probes skipped, "
          f"{counts['failed']} failed); read it anywhere with `doctor analyze {output}`", file=sys.stderr)
    return ExitCode.OK


def _write_bundle(folder: Path, stem: str, output: Path) -> None:
    """Pack folder into output through a new private file in output's folder (mkstemp: O_EXCL, never a link that
    someone planted there), renamed over output when complete."""
    partial = ""
    try:
        fd, partial = tempfile.mkstemp(prefix=f".{output.name}.", suffix=".part", dir=str(output.parent))
        with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
            tar.add(folder, arcname=stem)
        os.chmod(partial, 0o644)
        os.replace(partial, output)
    except OSError as exc:
        if partial:
            Path(partial).unlink(missing_ok=True)
        raise UsageError(f"{output}: cannot write the bundle ({exc.strerror or exc})") from None
