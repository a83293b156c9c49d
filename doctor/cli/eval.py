"""`doctor eval CASES... [--folds K] [--fit -o FILE] [--json]`: how well the ranking does on labelled cases.

Without options it scores the shipped weights (rules/weights.yaml). --folds K fits on K-1 folds and scores the
held-out one (stratified by cause, seeded), so the figures are for cases the weights never saw. --fit fits on every
case and writes the weights file (the one reproducible way rules/weights.yaml is made). Each case is analysed once.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from doctor.cli.exit_codes import ExitCode

FIT_COMMAND = "doctor eval --fit fixtures/cases fixtures/incidents -o rules/weights.yaml"
FLOORS = (("min_top1", "top1", 1), ("min_top3", "top3", 1), ("max_silent", "silent_failures", -1),
          ("max_false_alarms", "healthy_false_alarms", -1), ("max_ece", "ece", -1))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("cases", nargs="+", metavar="CASES",
                        help="case folders: <id>/{case.yaml,input/} or <name>/ beside <name>.expected.yaml, or folders of them")
    parser.add_argument("--folds", type=int, default=0, metavar="K", help="cross-validate: fit on K-1 folds, score the K-th")
    parser.add_argument("--seed", type=int, default=0, help="seed of the fold assignment")
    parser.add_argument("--fit", action="store_true", help="fit the weights on every case and write them (-o)")
    parser.add_argument("-o", "--output", default="rules/weights.yaml", help="where --fit writes the weights")
    parser.add_argument("--weights", help="score with this weights file instead of rules/weights.yaml")
    parser.add_argument("--json", action="store_true", help="print the figures and every case as JSON")
    for name, _, sign in FLOORS:
        parser.add_argument("--" + name.replace("_", "-"), type=float, metavar="X",
                            help=f"exit 1 when the figure is {'below' if sign > 0 else 'above'} X")


def run(args: argparse.Namespace) -> int:
    from doctor.errors import DoctorError
    from doctor.judgement.cases import find_cases
    if args.folds == 1 or args.folds < 0:
        raise DoctorError("--folds needs 2 or more")
    cases = find_cases(args.cases)
    if not cases:
        raise DoctorError("no cases under " + " ".join(args.cases))
    analysed = _analyse_all(cases)
    if args.fit:
        return _fit(analysed, Path(args.output), args.seed)
    rows = _cross_validated(analysed, args.folds, args.seed) if args.folds else _shipped(analysed, args.weights)
    from doctor.judgement.metrics import figures
    from doctor.judgement.model import guesses_if_failed
    result = figures(rows)
    result["mode"] = f"{args.folds}-fold cross-validation (seed {args.seed})" if args.folds else "shipped weights"
    if args.json:
        result["rows"] = [{"case": r.case.name, "cause": r.case.cause, "rank": r.rank(), "got": [list(x) for x in r.ranked[:3]],
                           "shows_no_failure": bool(guesses_if_failed(r.analysed.view))}
                          for r in rows]
        json.dump(result, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        _print(result, rows)
    return ExitCode.OK if _floors_hold(result, args) else ExitCode.FINDINGS


def _analyse_all(cases: list) -> list:  # type: ignore[type-arg]
    from doctor.judgement.cases import analyse
    if not sys.stderr.isatty():
        return [analyse(c) for c in cases]
    from rich.progress import Progress
    with Progress(transient=True) as progress:
        task = progress.add_task("analysing cases", total=len(cases))
        out = []
        for c in cases:
            out.append(analyse(c))
            progress.advance(task)
        return out


def _base():  # type: ignore[no-untyped-def]
    from doctor.diagnose import rule_base
    from doctor.judgement.model import base_model
    rules, causes = rule_base()
    return base_model(rules, causes)


def _shipped(analysed: list, weights: str | None) -> list:  # type: ignore[type-arg]
    from doctor.diagnose import rule_base
    from doctor.judgement.metrics import Scored, order
    from doctor.judgement.model import shown
    from doctor.judgement.model import WEIGHTS, load
    rules, causes = rule_base()
    model = load(causes, rules, Path(weights) if weights else WEIGHTS)
    return [Scored(a, order(shown(model.probabilities(a.view), a.view), a.view.evidence)) for a in analysed]


def _cross_validated(analysed: list, k: int, seed: int) -> list:  # type: ignore[type-arg]
    from doctor.judgement.fit import fit, stratified_folds
    from doctor.judgement.metrics import Scored, order
    from doctor.judgement.model import shown
    base = _base()
    fold = stratified_folds([a.case.cause for a in analysed], k, seed)
    scored: dict[int, Scored] = {}
    for part in range(k):
        train = [a.labelled() for a, f in zip(analysed, fold) if f != part]
        model = fit(base, train, folds=k, seed=seed)
        for i, (a, f) in enumerate(zip(analysed, fold)):
            if f == part:
                scored[i] = Scored(a, order(shown(model.probabilities(a.view), a.view), a.view.evidence))
    return [scored[i] for i in range(len(analysed))]


def _fit(analysed: list, output: Path, seed: int) -> int:  # type: ignore[type-arg]
    import yaml

    from doctor.judgement.fit import PENALTY, fit
    from doctor.judgement.model import SCHEMA, flatten
    model = fit(_base(), [a.labelled() for a in analysed], folds=5, seed=seed)
    data: dict[str, Any] = {"schema": SCHEMA, "cases": len(analysed),
                            "healthy": sum(a.case.healthy for a in analysed),
                            "penalty": dict(sorted(PENALTY.items())), "temperature": model.temperature,
                            "unexplained": model.unexplained, "unexplained_guess": model.unexplained_guess,
                            "unexplained_quiet": model.unexplained_quiet,
                            "unexplained_guess_by": dict(model.unexplained_guess_by)}
    data.update(flatten(model.params))
    header = (f"# Fitted ranking weights: written by `{FIT_COMMAND}`.\n"
              "# Never edit by hand: add cases and refit. A rule missing here keeps its written confidence as log-odds.\n")
    output.write_text(header + yaml.safe_dump(data, sort_keys=False, width=120), encoding="utf-8")
    print(f"wrote {output}: {len(model.params)} weights from {len(analysed)} cases, temperature {model.temperature}, unexplained log-weight {model.unexplained} (symptom-only: {model.unexplained_guess}, by symptom {model.unexplained_guess_by}; no failure shown: {model.unexplained_quiet})")
    return ExitCode.OK


def _floors_hold(result: dict, args: argparse.Namespace) -> bool:  # type: ignore[type-arg]
    ok = True
    for name, figure, sign in FLOORS:
        limit = getattr(args, name)
        if limit is not None and (result[figure] - limit) * sign < 0:
            print(f"doctor eval: {figure} {result[figure]} is {'below' if sign > 0 else 'above'} {limit}", file=sys.stderr)
            ok = False
    return ok


def _print(result: dict, rows: list) -> None:  # type: ignore[type-arg]
    for r in rows:
        k = r.rank()
        mark = "ok  " if k == 1 else (f"#{k}  " if k else "MISS")
        got = ", ".join(f"{c} {p:.2f}" for c, p in r.ranked[:3]) or "(no diagnosis)"
        print(f"{mark} {r.case.name[:44]:<44} want {r.case.cause:<24} got {got}")
    print(f"\n{result['mode']}: {result['cases']} cases ({result['failures']} failures, {result['healthy']} healthy)")
    print(f"top1 {result['top1']:.3f}  top3 {result['top3']:.3f}  mrr {result['mrr']:.3f}   "
          f"(failures only: top1 {result['failures_top1']:.3f}, top3 {result['failures_top3']:.3f})")
    print(f"failures answered with nothing {result['silent_failures']:.3f} "
          f"(and no unexplained line listed either {result['silent_failures_no_lines']:.3f})  "
          f"healthy false alarms {result['healthy_false_alarms']:.3f}  ECE {result['ece']:.3f}")
    print(f"failures whose input shows no failure {result['failures_showing_nothing']:.3f} (answered only with the "
          f"guesses 'if it failed'; right cause in their top 3: {result['failures_showing_nothing_top3']:.3f})")
    print("\nreliability (top diagnosis):  bin       n   confidence  accuracy")
    for b in result["reliability"]:
        print(f"{'':30}{b['bin']:<9}{b['n']:>3}   {b['confidence']:>9.3f}  {b['accuracy']:>8.3f}")
    print("\nper cause:                     cases  precision  recall")
    for cause, v in result["per_cause"].items():
        prec = "-" if v["precision"] is None else f"{v['precision']:.2f}"
        rec = "-" if v["recall"] is None else f"{v['recall']:.2f}"
        print(f"  {cause:<28}{v['cases']:>5}  {prec:>9}  {rec:>6}")
