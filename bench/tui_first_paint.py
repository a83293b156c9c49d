"""Startup to first paint of `doctor tui`, in a real terminal (tmux), against a bare Textual app in the same run.

    PYTHONPATH=$PWD python bench/tui_first_paint.py [--runs 5]

first paint: `tmux new-session` is asked to start the program -> capture-pane shows the first screen's title.
inputs read: -> the first screen lists what it read (the gathering worker has finished).
baseline:    the same measure for an App with a Header, one Static and a Footer (what Textual itself costs).
Goal: doctor's first paint under 1.5 s on the 2-core development machine.
"""
from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "tui"))
from tmux_terminal import TMUX, TmuxTerminal  # noqa: E402

BARE_APP = """\
from textual.app import App
from textual.widgets import Footer, Header, Static


class Bare(App):
    def compose(self):
        yield Header()
        yield Static("bare app ready")
        yield Footer()


Bare().run()
"""
DEMO = "fixtures/format-examples/tui-demo"


def measure(command: str, marks: dict[str, str]) -> dict[str, float]:
    """Seconds from start to each mark's text appearing on screen."""
    out: dict[str, float] = {}
    with TmuxTerminal(command, str(REPO)) as term:
        started = term.start()
        for name, text in marks.items():
            seen, _ = term.wait_for(lambda screen, t=text: t in screen, timeout_s=30, poll_s=0.005)
            out[name] = seen - started
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if TMUX is None:
        print("tmux is not installed: nothing measured", file=sys.stderr)
        return 2
    python = shlex.quote(sys.executable)
    with tempfile.TemporaryDirectory() as tmp:
        bare = Path(tmp) / "bare_app.py"
        bare.write_text(BARE_APP)
        cases = {
            "bare Textual app": (f"{python} {shlex.quote(str(bare))}", {"first paint": "bare app ready"}),
            "doctor tui " + DEMO: (f"env PYTHONPATH={shlex.quote(str(REPO))} {python} -m doctor tui {DEMO}",
                                   {"first paint": "What do you see?", "inputs read": "Read 3 of 3 input(s)"}),
        }
        results: dict[str, dict[str, list[float]]] = {}
        for _ in range(args.runs):                      # interleaved, so load on the machine hits both alike
            for name, (command, marks) in cases.items():
                for mark, seconds in measure(command, marks).items():
                    results.setdefault(name, {}).setdefault(mark, []).append(seconds)
    print(f"{'program':<40} {'mark':<12} {'median s':>9} {'min s':>7} {'max s':>7}  (runs={args.runs}, 120x40 tmux)")
    for name, marks in results.items():
        for mark, values in marks.items():
            print(f"{name:<40} {mark:<12} {statistics.median(values):9.3f} {min(values):7.3f} {max(values):7.3f}")
    doctor = statistics.median(results["doctor tui " + DEMO]["first paint"])
    bare_s = statistics.median(results["bare Textual app"]["first paint"])
    print(f"doctor first paint {doctor:.3f} s = bare Textual {bare_s:.3f} s + {doctor - bare_s:.3f} s; "
          f"goal < 1.5 s: {'met' if doctor < 1.5 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
