"""The figures of `doctor eval`: top-1/top-3/MRR (score.py's definitions), per-cause precision and recall, the
healthy false-alarm rate, failures answered with nothing, and the expected calibration error with its table."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from doctor.judgement.cases import Analysed
from doctor.judgement.model import guesses_if_failed

ALARM = 0.5                 # a cause at or above this on a healthy case is a false alarm (score.py's --healthy-below)
BINS = 10


@dataclass(frozen=True)
class Scored:
    analysed: Analysed
    ranked: tuple[tuple[str, float], ...]      # (cause, probability), best first

    @property
    def case(self):  # type: ignore[no-untyped-def]
        return self.analysed.case

    def rank(self) -> int | None:
        """1-based rank of the first acceptable cause; for a healthy case 1 when nothing reaches ALARM."""
        if self.case.healthy:
            return None if any(p >= ALARM for _, p in self.ranked) else 1
        return next((i for i, (c, _) in enumerate(self.ranked, 1) if c in self.case.accept), None)


def order(probabilities: dict[str, float], read: Iterable[str] = ()) -> tuple[tuple[str, float], ...]:
    """Best first, as the report lists them: on a tie (3 decimals) a cause some rule supports (`read`) first."""
    first = set(read)
    return tuple(sorted(((c, round(p, 3)) for c, p in probabilities.items()),
                        key=lambda cp: (-cp[1], cp[0] not in first, cp[0])))


def _share(part: int, whole: int) -> float:
    return round(part / whole, 3) if whole else 0.0


def figures(rows: list[Scored]) -> dict[str, Any]:
    n = len(rows)
    ranks = [r.rank() for r in rows]
    failures = [r for r in rows if not r.case.healthy]
    healthy = [r for r in rows if r.case.healthy]
    silent = [r for r in failures if not r.ranked]
    guessed = [r for r in failures if guesses_if_failed(r.analysed.view)]   # the input showed no failure at all
    return {
        "cases": n, "failures": len(failures), "healthy": len(healthy),
        "top1": _share(sum(k == 1 for k in ranks), n),
        "top3": _share(sum(k is not None and k <= 3 for k in ranks), n),
        "mrr": round(sum(1 / k for k in ranks if k) / n, 3) if n else 0.0,
        "failures_top1": _share(sum(r.rank() == 1 for r in failures), len(failures)),
        "failures_top3": _share(sum((r.rank() or 99) <= 3 for r in failures), len(failures)),
        "silent_failures": _share(len(silent), len(failures)),
        "silent_failures_no_lines": _share(sum(r.analysed.unexplained_lines == 0 for r in silent), len(failures)),
        "failures_showing_nothing": _share(len(guessed), len(failures)),
        "failures_showing_nothing_top3": _share(sum((r.rank() or 99) <= 3 for r in guessed), len(guessed)),
        "healthy_false_alarms": _share(sum(r.rank() is None for r in healthy), len(healthy)),
        **calibration(rows),
        "per_cause": per_cause(rows),
    }


def per_cause(rows: list[Scored]) -> dict[str, dict[str, Any]]:
    """cause -> cases, precision (of the top-1 answers naming it, the share right), recall (its cases answered first)."""
    causes = sorted({r.case.cause for r in rows} | {r.ranked[0][0] for r in rows if r.ranked})
    out = {}
    for cause in causes:
        mine = [r for r in rows if r.case.cause == cause]
        named = [r for r in rows if r.ranked and r.ranked[0][0] == cause and (not r.case.healthy or r.ranked[0][1] >= ALARM)]
        out[cause] = {"cases": len(mine),
                      "precision": _share(sum(cause in r.case.accept for r in named), len(named)) if named else None,
                      "recall": _share(sum(r.rank() == 1 for r in mine), len(mine)) if mine else None}
    return out


def calibration(rows: list[Scored]) -> dict[str, Any]:
    """Top diagnosis' probability against whether it is right, in BINS equal bins; ECE = weighted |acc - conf|."""
    pairs = [(r.ranked[0][1], r.ranked[0][0] in r.case.accept) for r in rows if r.ranked]
    table = []
    ece = 0.0
    for b in range(BINS):
        lo, hi = b / BINS, (b + 1) / BINS
        inside = [(p, ok) for p, ok in pairs if lo <= p < hi or (b == BINS - 1 and p == 1.0)]
        if not inside:
            continue
        conf = sum(p for p, _ in inside) / len(inside)
        acc = sum(ok for _, ok in inside) / len(inside)
        ece += len(inside) / len(pairs) * abs(acc - conf)
        table.append({"bin": f"{lo:.1f}-{hi:.1f}", "n": len(inside), "confidence": round(conf, 3),
                      "accuracy": round(acc, 3)})
    return {"ece": round(ece, 3), "reliability": table}
