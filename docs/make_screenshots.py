"""Regenerate the TUI screenshots in docs/ (PNG) from SVG screenshots of the app on the demo incident.

    PYTHONPATH=$PWD python docs/make_screenshots.py        # needs textual and rsvg-convert (apt: librsvg2-bin)

Install the font the SVG names (apt: fonts-firacode) for exact cell widths; with a fallback monospace font
(DejaVu Sans Mono) block characters show thin seams.

The app runs headless at 120x40 exactly as in tests/tui/test_snapshots.py; each SVG is converted by rsvg-convert.
Textual's SVG relies on non-breaking spaces that librsvg collapses unless the root says xml:space="preserve".
"""
from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEMO = "fixtures/format-examples/tui-demo"
SIZE = (120, 40)
WIDTH_PX = 1400

# png name -> (symptom given on the command line or None, theme, keys pressed once the inputs are read)
SHOTS: dict[str, tuple[str | None, str, tuple[str, ...]]] = {
    "tui-symptom.png": (None, "dark", ("down", "down")),
    "tui-diagnosis.png": ("nccl_error", "dark", ("enter",)),
    "tui-diagnosis-light.png": ("nccl_error", "light", ("enter",)),
    "tui-topology.png": ("nccl_error", "dark", ("t",)),
    "tui-memory.png": ("oom", "dark", ("m",)),
}


async def svg_of(symptom: str | None, theme: str, keys: tuple[str, ...]) -> str:
    from doctor.tui.app import DoctorApp
    app = DoctorApp([DEMO], symptom=symptom, theme=theme)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(2):
            await app.workers.wait_for_complete()
            await pilot.pause()
        await pilot.press(*keys)
        await app.workers.wait_for_complete()
        await pilot.pause()
        return app.export_screenshot(title="doctor tui " + DEMO)


def to_png(svg: str, png: Path, rsvg: str) -> None:
    svg = svg.replace("<svg ", '<svg xml:space="preserve" ', 1)
    with tempfile.NamedTemporaryFile("w", suffix=".svg", delete=False) as fh:
        fh.write(svg)
    try:
        subprocess.run([rsvg, "-w", str(WIDTH_PX), fh.name, "-o", str(png)], check=True, timeout=60)
    finally:
        os.unlink(fh.name)


def main() -> int:
    rsvg = shutil.which("rsvg-convert")
    if rsvg is None:
        print("rsvg-convert is missing: apt-get install librsvg2-bin", file=sys.stderr)
        return 2
    os.chdir(REPO)                      # inputs show as fixtures/..., as in the snapshots
    for name, (symptom, theme, keys) in SHOTS.items():
        to_png(asyncio.run(svg_of(symptom, theme, keys)), REPO / "docs" / name, rsvg)
        print(f"docs/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
