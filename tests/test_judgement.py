"""The ranking model (doctor/judgement/, rules/README.md "How doctor ranks"): evidence counted once, probabilities
with an unexplained share, priors from written confidence, fitting, and `doctor eval`."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml

from doctor.aggregate import aggregate
from doctor.diagnose import diagnose_files, rule_base
from doctor.engine import run
from doctor.judgement.context import read_symptom
from doctor.judgement.evidence import counted, finding_items
from doctor.judgement.fit import Labelled, fit, fit_calibration, stratified_folds
from doctor.judgement.model import BASE, CaseView, Model, base_model, flatten, load, rule_prior, softmax, unflatten
from doctor.probing.offline import gather_files
from doctor.rank import view

REPO = Path(__file__).resolve().parents[1]
INCIDENTS = REPO / "fixtures" / "incidents"


def findings_of(path: Path) -> tuple[list, list]:
    from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
    facts = aggregate(gather_files([str(path)], LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts)
    return run(rule_base()[0], facts), facts


def test_one_line_read_by_two_rules_of_a_cause_counts_once() -> None:
    """Real mpirun output (--mca btl_tcp_if_include lo across two nodes): MPI002 and MPI003 both read the same
    line; only the stronger counts for wrong_socket_ifname, and the evidence list still quotes that line once."""
    findings, facts = findings_of(INCIDENTS / "mpirun-btl-if-include-lo-netns")
    mine = [f for f in findings if f.rule.cause == "wrong_socket_ifname"]
    assert {f.rule.id for f in mine} >= {"MPI002", "MPI003"}
    def lines(rule_id: str) -> set:
        return set().union(*(finding_items(f) for f in mine if f.rule.id == rule_id))
    assert lines("MPI003") <= lines("MPI002"), "every line MPI003 reads, MPI002 reads too"
    assert counted(findings)["wrong_socket_ifname"].support == ("MPI002",)


def test_probabilities_and_unexplained_share_add_up_on_every_incident() -> None:
    for label in sorted(INCIDENTS.glob("*.expected.yaml")):
        report = diagnose_files([str(label.with_name(label.name.removesuffix(".expected.yaml")))])
        confidences = [d.confidence for d in report.diagnoses + report.if_failed]   # what --json lists
        assert not (report.diagnoses and report.if_failed), "guesses 'if it failed' only where nothing else is shown"
        assert all(0.0 <= c <= 1.0 for c in confidences)
        assert confidences == sorted(confidences, reverse=True)
        assert sum(confidences) + report.unexplained == pytest.approx(1.0, abs=0.01), label.name
        assert report.unexplained >= 0.0


def test_a_rule_alone_scores_its_written_confidence_before_fitting() -> None:
    rules, causes = rule_base()
    model = base_model(rules, causes)
    rule = next(r for r in rules if r.effect != "lower" and 0.3 <= r.confidence <= 0.9)
    assert BASE + rule_prior(rule) == pytest.approx(math.log(rule.confidence / (1 - rule.confidence)))
    lower = next(r for r in rules if r.effect == "lower")
    assert rule_prior(lower) < 0 < model.prior(f"rule:{rule.id}")


def test_rules_missing_from_the_weights_file_keep_their_prior(tmp_path: Path) -> None:
    rules, causes = rule_base()
    fitted, absent = rules[0], rules[1]
    weights = tmp_path / "weights.yaml"
    weights.write_text(yaml.safe_dump({"temperature": 1.5, "unexplained": -1.25, **flatten({f"rule:{fitted.id}": 0.123})}))
    model = load(causes, rules, weights)
    assert model.weight(f"rule:{fitted.id}") == 0.123 and model.temperature == 1.5 and model.unexplained == -1.25
    assert model.weight(f"rule:{absent.id}") == rule_prior(absent)


def test_the_unexplained_weight_moves_probability_between_the_causes_and_no_cause() -> None:
    scores = {"port_blocked": 1.0, "wrong_socket_ifname": 0.0}
    plain, bolder = softmax(scores), softmax(scores, unexplained=-1.0)
    assert plain["port_blocked"] == pytest.approx(math.e / (1 + math.e + 1))
    assert bolder["port_blocked"] > plain["port_blocked"] and sum(bolder.values()) < 1
    assert bolder["port_blocked"] / bolder["wrong_socket_ifname"] == pytest.approx(math.e)   # the ranking is unchanged


def test_calibration_fit_finds_the_weight_that_explains_held_out_cases() -> None:
    always_right = [({"port_blocked": 2.0}, frozenset({"port_blocked"}))] * 20
    never_right = [({"port_blocked": 2.0}, frozenset())] * 20
    assert fit_calibration(always_right)[1] < 0 < fit_calibration(never_right)[1]
    assert fit_calibration([], always_right)[2] < 0 < fit_calibration([], never_right)[2]


def test_each_symptom_with_enough_guesses_gets_its_own_unexplained_weight() -> None:
    """A crash's guess is right less often than an NCCL error's: one shared weight made the first over-confident and
    the second under-confident. A symptom with too few held-out guesses keeps the shared weight."""
    from doctor.judgement.fit import OWN_GUESS_WEIGHT_FROM, guess_weights
    mostly_right = [({"known_software_bug": 1.0}, frozenset({"known_software_bug"}))] * 18 + \
                   [({"known_software_bug": 1.0}, frozenset())] * 2
    mostly_wrong = [({"known_software_bug": 1.0}, frozenset({"known_software_bug"}))] * 6 + \
                   [({"known_software_bug": 1.0}, frozenset())] * 14
    few = mostly_right[:OWN_GUESS_WEIGHT_FROM - 1]
    weights = guess_weights(1.0, {"nccl_error": mostly_right, "crash": mostly_wrong, "hang": few})
    assert set(weights) == {"nccl_error", "crash"}
    assert weights["nccl_error"] < weights["crash"]          # less weight on "no cause shown" where guesses are right
    model = Model({}, {"known_software_bug": ("crash", "nccl_error", "hang")}, unexplained_guess=0.5,
                  unexplained_guess_by=weights)
    view = lambda symptom: CaseView(evidence={}, symptom=symptom, context=())   # noqa: E731
    assert model.unexplained_for(view("crash")) == weights["crash"]
    assert model.unexplained_for(view("hang")) == 0.5


def test_weights_file_layout_round_trips() -> None:
    params = {"rule:NET001": 1.23456, "bias:port_blocked": -1.0, "symptom:port_blocked:hang": 0.2,
              "context:port_blocked:container": -0.1, "prior:oom_activations:oom": -2.0, "off_symptom_read": -0.4}
    assert unflatten(flatten(params)) == {k: round(v, 3) for k, v in params.items()}


def test_fit_moves_rules_that_fire_and_leaves_the_others_at_their_prior() -> None:
    rules, causes = rule_base()
    base = base_model(rules, causes)
    cases = []
    for label in sorted(INCIDENTS.glob("*.expected.yaml")):
        answer = yaml.safe_load(label.read_text())
        findings, facts = findings_of(label.with_name(label.name.removesuffix(".expected.yaml")))
        accept = frozenset() if answer["cause"] == "healthy" else frozenset({answer["cause"]})
        cases.append(Labelled(view(findings, facts, None), accept))
    first, again = fit(base, cases, folds=3), fit(base, cases, folds=3)
    assert first.params == again.params and first.temperature == again.temperature
    fired = {r for c in cases for ev in c.view.evidence.values() for r in ev.support}
    never = next(r for r in rules if r.id not in fired)
    assert f"rule:{never.id}" not in first.params and first.weight(f"rule:{never.id}") == base.prior(f"rule:{never.id}")
    right = sum(max(first.probabilities(c.view).items(), key=lambda kv: kv[1], default=("", 0))[0] in c.accept
                for c in cases if c.accept)
    assert right >= 0.9 * sum(1 for c in cases if c.accept)


def test_folds_are_stratified_and_seeded() -> None:
    labels = ["a"] * 10 + ["b"] * 5 + ["healthy"] * 5
    folds = stratified_folds(labels, 5, seed=0)
    assert folds == stratified_folds(labels, 5, seed=0)
    for k in range(5):
        assert [labels[i] for i, f in enumerate(folds) if f == k].count("a") == 2


def test_symptom_read_from_the_input() -> None:
    cases = {"port-in-use-torchrun": None, "rank-skips-collective": "hang", "store-port-dropped-netns": "init_timeout"}
    for name, symptom in cases.items():
        _, facts = findings_of(INCIDENTS / name)
        got = read_symptom(facts)
        assert symptom is None or got == symptom, (name, got)


def test_symptom_read_from_stacks_and_setup_frames() -> None:
    """A gdb backtrace stuck in cudaLaunchKernel under ncclGroupEnd (NCCL issue 750) is a hang; a traceback cut
    inside init_process group / TCPStore setup (slowfast issue 337, torchdata issue 1142: no exception line) is a
    failure at init, not a generic crash; so are a refused gloo pair connect and NCCL finding no socket interface."""
    cases = REPO / "fixtures" / "cases"
    expected = {"ksb-nccl-750": "hang", "port-in-use-slowfast-337": "init_timeout",
                "wrong-ifname-torchdata-1142": "init_timeout",
                "wrong-ifname-pytorch-15592": "init_timeout",    # gloo pair connect refused: the mesh never formed
                "wrong-ifname-marin-7018": "init_timeout"}       # 'Bootstrap : no socket interface found' 
    for name, symptom in expected.items():
        _, facts = findings_of(cases / name / "input")
        assert read_symptom(facts) == symptom, name


def test_py_spy_dumps_alone_show_a_hang() -> None:
    """Lab py-spy dumps of four ranks, three inside all_reduce (fr-sleep-pyspy), without the Flight Recorder files
    that would show the hang anyway: the stacks alone are the sign."""
    from probes import DOCUMENT_PROBES, LINE_PROBES, STREAM_PROBES
    dumps = sorted(str(p) for p in (INCIDENTS / "fr-sleep-pyspy").glob("pyspy_rank*.txt"))
    facts = aggregate(gather_files(dumps, LINE_PROBES, DOCUMENT_PROBES, STREAM_PROBES).facts)
    assert {f.KIND for f in facts} >= {"stack.process"} and "collective.timeout" not in {f.KIND for f in facts}
    assert read_symptom(facts) == "hang"


def test_doctor_eval_cross_validates_and_holds_floors(doctor_cli) -> None:
    proc = doctor_cli("eval", "--folds", "3", "--json", str(INCIDENTS))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["cases"] == len(list(INCIDENTS.glob("*.expected.yaml")))
    assert {"top1", "top3", "mrr", "silent_failures", "healthy_false_alarms", "ece", "reliability", "per_cause"} <= set(data)
    assert sum(b["n"] for b in data["reliability"]) <= data["cases"]
    assert 0.0 <= data["failures_showing_nothing_top3"] <= 1.0
    quiet = [r for r in data["rows"] if r["cause"] != "healthy" and not r["got"]]
    assert data["silent_failures"] == round(len(quiet) / data["failures"], 3)
    text = doctor_cli("eval", str(INCIDENTS), "--max-ece", "0.0001", "--min-top1", "0.5")
    assert text.returncode == 1 and "top1 " in text.stdout and "reliability" in text.stdout
    assert text.stderr.strip().startswith("doctor eval: ece") and text.stderr.count("\n") == 1


def test_doctor_eval_bad_input_is_one_line(doctor_cli, tmp_path: Path) -> None:
    proc = doctor_cli("eval", str(tmp_path / "nope"))
    assert proc.returncode == 2 and "not a folder of cases" in proc.stderr and "Traceback" not in proc.stderr
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "case.yaml").write_text("not: [a, label")
    proc = doctor_cli("eval", str(tmp_path))
    assert proc.returncode == 2 and "not a case label" in proc.stderr


def test_fit_writes_a_deterministic_weights_file(doctor_cli, tmp_path: Path) -> None:
    one, two = tmp_path / "one.yaml", tmp_path / "two.yaml"
    assert doctor_cli("eval", "--fit", str(INCIDENTS), "-o", str(one)).returncode == 0
    assert doctor_cli("eval", "--fit", str(INCIDENTS), "-o", str(two)).returncode == 0
    assert one.read_text() == two.read_text()
    data = yaml.safe_load(one.read_text())
    assert one.read_text().startswith("# Fitted ranking weights") and data["cases"] == len(list(INCIDENTS.glob("*.expected.yaml"))) and data["rules"]
    assert list(data["rules"]) == sorted(data["rules"])


def test_context_reads_roce_from_nccl_own_hca_line() -> None:
    """NCCL names the link layer of each HCA it uses (`NET/IB : Using [0]mlx5_0:1/RoCE`); the nccl_roce feature
    reads it, and a native IB line is not RoCE."""
    from doctor.judgement.context import features
    roce = REPO / "fixtures" / "probes" / "nccl_log" / "nccl-2.21-roce-cumem-nvls.log"
    _, facts = findings_of(roce)
    assert {"nccl_ib", "nccl_roce"} <= set(features(facts))
    ib = REPO / "fixtures" / "probes" / "nccl_log" / "nccl-2.12-ib-gdr-p2p.log"
    _, facts = findings_of(ib)
    assert "nccl_ib" in features(facts) and "nccl_roce" not in features(facts)
