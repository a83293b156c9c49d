"""Fitting the ranking model: L2-regularised maximum likelihood toward the rules' written confidence, then a
temperature fitted on held-out folds. Pure Python (a small L-BFGS): a few hundred cases fit in about a second.

The target of a case: its cause (or any also_acceptable one) when that cause has support in the input;
otherwise, and for a healthy case, the unexplained class. So a rule that fires on healthy input is pushed down,
and a rule that names the right cause is pushed up, each pulled back toward its prior by the penalty:
a rule no case fires keeps its prior; a cause with few cases stays near its rules' written confidence.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Callable

from doctor.judgement.model import QUIET, CaseView, Model, candidates, guess_symptom, keys

# The L2 penalty per parameter group: how far the data may pull a weight from its prior.
# off_symptom (a stated symptom) never occurs in fitting: cases are read as uploaded, their symptom read from them.
PENALTY: dict[str, float] = {"rule": 1.0, "bias": 1.0, "symptom": 2.0, "context": 4.0, "off_symptom_read": 1.0, "quiet_input": 1.0,
                             "prior": 1.0, "guess": 4.0}
# The temperature is searched in this range. A small, easy case set (every held-out case right) drives the
# likelihood toward ever sharper scores; the lower end keeps one lucky fold from making every score 0.99.
TEMPERATURE_RANGE = (0.5, 4.0)
UNEXPLAINED_GRID = tuple(x / 4 for x in range(-12, 9))   # u from -3 to 2: how much weight "no cause shown" gets
# A symptom (or narrowing sign) whose guesses held out this many cases gets an unexplained weight of its own; the
# others share one. The symptoms' guesses are not equally often right (CV, 2026-12-04: a crash's first guess 0.50 of
# the time at 0.58, an NCCL error's 0.81 at 0.72), so one shared weight left the first over-, the second under-confident.
OWN_GUESS_WEIGHT_FROM = 20


@dataclass(frozen=True)
class Labelled:
    view: CaseView
    accept: frozenset[str]          # the causes that count as right; empty for a healthy case


@dataclass
class _Problem:
    index: dict[str, int]
    prior: list[float]
    penalty: list[float]
    rows: list[tuple[list[list[int]], list[bool]]]   # per case: per candidate cause its parameter indices; is it right


def _problem(model: Model, cases: list[Labelled]) -> _Problem:
    index: dict[str, int] = {}
    rows = []
    for case in cases:
        causes = candidates(case.view, model.cause_symptoms)
        cand = []
        for c in causes:
            ids = []
            for k in keys(case.view, c, model.cause_symptoms):
                ids.append(index.setdefault(k, len(index)))
            cand.append(ids)
        rows.append((cand, [c in case.accept for c in causes]))
    names = sorted(index, key=index.get)
    prior = [model.prior(k) for k in names]
    penalty = [PENALTY.get(k.partition(":")[0], 1.0) for k in names]
    return _Problem(index, prior, penalty, rows)


def _objective(p: _Problem, theta: list[float]) -> tuple[float, list[float]]:
    grad = [lam * (t - t0) for lam, t, t0 in zip(p.penalty, theta, p.prior)]
    value = 0.5 * sum(lam * (t - t0) ** 2 for lam, t, t0 in zip(p.penalty, theta, p.prior))
    for cand, right in p.rows:
        scores = [sum(theta[i] for i in ids) for ids in cand]
        top = max(0.0, *scores) if scores else 0.0
        exp = [math.exp(s - top) for s in scores]
        z = math.exp(-top) + sum(exp)
        probs = [e / z for e in exp]
        if any(right):
            za = sum(e for e, r in zip(exp, right) if r)
            value += math.log(z) - math.log(za)
            target = [e / za if r else 0.0 for e, r in zip(exp, right)]
        else:
            value += math.log(z) + top
            target = [0.0] * len(exp)
        for ids, pr, q in zip(cand, probs, target):
            g = pr - q
            if g:
                for i in ids:
                    grad[i] += g
    return value, grad


def _lbfgs(p: _Problem, theta: list[float], iterations: int = 300, memory: int = 10) -> list[float]:
    value, grad = _objective(p, theta)
    history: list[tuple[list[float], list[float], float]] = []
    for _ in range(iterations):
        if math.sqrt(sum(g * g for g in grad)) < 1e-6:
            break
        q = grad[:]
        alphas = []
        for s, y, rho in reversed(history):
            a = rho * sum(si * qi for si, qi in zip(s, q))
            alphas.append(a)
            q = [qi - a * yi for qi, yi in zip(q, y)]
        if history:
            s, y, _ = history[-1]
            gamma = sum(si * yi for si, yi in zip(s, y)) / max(sum(yi * yi for yi in y), 1e-12)
            q = [gamma * qi for qi in q]
        for (s, y, rho), a in zip(history, reversed(alphas)):
            b = rho * sum(yi * qi for yi, qi in zip(y, q))
            q = [qi + si * (a - b) for qi, si in zip(q, s)]
        direction = [-qi for qi in q]
        slope = sum(d * g for d, g in zip(direction, grad))
        if slope >= 0:
            direction, slope, history = [-g for g in grad], -sum(g * g for g in grad), []
        step = 1.0
        while True:
            trial = [t + step * d for t, d in zip(theta, direction)]
            new_value, new_grad = _objective(p, trial)
            if new_value <= value + 1e-4 * step * slope or step < 1e-10:
                break
            step *= 0.5
        s = [a - b for a, b in zip(trial, theta)]
        y = [a - b for a, b in zip(new_grad, grad)]
        sy = sum(si * yi for si, yi in zip(s, y))
        if sy > 1e-12:
            history = (history + [(s, y, 1.0 / sy)])[-memory:]
        converged = abs(value - new_value) < 1e-9 * max(1.0, abs(value))
        theta, value, grad = trial, new_value, new_grad
        if converged:
            break
    return theta


def fit_weights(model: Model, cases: list[Labelled]) -> dict[str, float]:
    """The fitted parameters (every parameter some case uses) at temperature 1."""
    problem = _problem(model, cases)
    theta = _lbfgs(problem, problem.prior[:])
    return {k: theta[i] for k, i in problem.index.items()}


Scored = list[tuple[dict[str, float], frozenset[str]]]


def held_out_nll(scored: Scored, t: float, u: float) -> float:
    """Negative log-likelihood of held-out cases at temperature t and unexplained log-weight u; a case whose cause
    is no candidate (or a healthy one) counts as the unexplained class."""
    total = 0.0
    for scores, accept in scored:
        scaled = {c: s / t for c, s in scores.items()}
        top = max(u, *scaled.values()) if scaled else u
        z = math.exp(u - top) + sum(math.exp(s - top) for s in scaled.values())
        right = [math.exp(s - top) for c, s in scaled.items() if c in accept]
        total += math.log(z) - (math.log(sum(right)) if right else u - top)
    return total


def guess_weights(t: float, by_symptom: dict[str, Scored]) -> dict[str, float]:
    """Per symptom with enough held-out guesses, the unexplained log-weight that fits its guesses best at temperature t."""
    return {s: min((held_out_nll(part, t, u), u) for u in UNEXPLAINED_GRID)[1]
            for s, part in sorted(by_symptom.items()) if len(part) >= OWN_GUESS_WEIGHT_FROM}


def fit_calibration(scored: Scored, guesses: Scored = (), quiet: Scored = ()) -> tuple[float, float, float, float]:
    """(T, u, u_guess, u_quiet): one temperature (golden-section search on log T) and, for each T, the unexplained log-weight
    on UNEXPLAINED_GRID that fits best, separately for cases where a rule supports some cause (`scored`) and cases
    where only the symptom suggests causes (`guesses`): a guess from the symptom alone is right less often, and
    inputs that show no symptom at all (`quiet`: mostly healthy, their guesses say "if it failed")."""
    def best(t: float, part: Scored) -> tuple[float, float]:
        return min((held_out_nll(part, t, u), u) for u in UNEXPLAINED_GRID) if part else (0.0, 0.0)

    def nll(log_t: float) -> float:
        t = math.exp(log_t)
        return best(t, scored)[0] + best(t, guesses)[0] + best(t, quiet)[0]
    t = golden_section(nll, *TEMPERATURE_RANGE)
    return t, best(t, scored)[1], best(t, guesses)[1], best(t, quiet)[1]


def golden_section(f: Callable[[float], float], low: float, high: float) -> float:
    """The x in [low, high] minimising f(log x) (f takes log x), searched on log x; rounded to 3 places."""
    lo, hi = math.log(low), math.log(high)
    ratio = (math.sqrt(5) - 1) / 2
    a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    fa, fb = f(a), f(b)
    for _ in range(40):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - ratio * (hi - lo)
            fa = f(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + ratio * (hi - lo)
            fb = f(b)
    return round(math.exp((lo + hi) / 2), 3)


def stratified_folds(labels: list[str], k: int, seed: int = 0) -> list[int]:
    """fold number per case: each cause's cases dealt round-robin over the folds after a seeded shuffle."""
    rng = random.Random(seed)
    fold = [0] * len(labels)
    by_label: dict[str, list[int]] = {}
    for i, label in enumerate(labels):
        by_label.setdefault(label, []).append(i)
    offset = 0
    for label in sorted(by_label):
        members = by_label[label]
        rng.shuffle(members)
        for j, i in enumerate(members):
            fold[i] = (offset + j) % k
        offset += len(members)
    return fold


def _label(case: Labelled) -> str:
    return min(case.accept) if case.accept else "healthy"


def fit(base: Model, cases: list[Labelled], folds: int = 5, seed: int = 0) -> Model:
    """Weights fitted on every case; the temperature fitted on the held-out scores of `folds` inner folds."""
    scored: Scored = []
    guesses: Scored = []
    quiet: Scored = []
    by_symptom: dict[str, Scored] = {}
    if folds > 1 and len(cases) >= 2 * folds:
        fold = stratified_folds([_label(c) for c in cases], folds, seed)
        for k in range(folds):
            train = [c for c, f in zip(cases, fold) if f != k]
            inner = Model(base.priors, base.cause_symptoms, fit_weights(base, train))
            for c in (c for c, f in zip(cases, fold) if f == k):
                if not c.view.evidence:
                    symptom = guess_symptom(c.view)
                    (quiet if symptom == QUIET else guesses).append((inner.scores(c.view), c.accept))
                    if symptom != QUIET:
                        by_symptom.setdefault(symptom or "", []).append(guesses[-1])
                elif inner.fitted_support(c.view):     # only rules no case fitted: u stays 0 for those
                    scored.append((inner.scores(c.view), c.accept))
    model = Model(base.priors, base.cause_symptoms, fit_weights(base, cases))
    if scored or guesses or quiet:
        (model.temperature, model.unexplained, model.unexplained_guess,
         model.unexplained_quiet) = fit_calibration(scored, guesses, quiet)
        model.unexplained_guess_by = guess_weights(model.temperature, by_symptom)
    return model
