"""probes/open_files.py on Ray's logging-file error, as two reporters a year apart printed it (sic: 'Too may')."""
from __future__ import annotations

from pathlib import Path

import pytest

from doctor.probing.contract import parse_lines
from probes.open_files import OpenFiles

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "cases"


@pytest.mark.parametrize("case", ["nofile-ray-10104", "nofile-ray-6583"])
def test_rays_logging_file_error_is_running_out_of_descriptors(case: str) -> None:
    text = next((CASES / case / "input").iterdir()).read_text(encoding="utf-8")
    (failed,) = [f for f in parse_lines(OpenFiles, text) if f.KIND == "sys.call_failed"]
    assert failed.errno == "EMFILE" and failed.resource == "file descriptors"


def test_open_files_in_prose_is_not_a_failure() -> None:
    assert not [f for f in parse_lines(OpenFiles, "Tip: keep the number of open files low\n") if f.KIND == "sys.call_failed"]


def test_grpc_accept_error_wrapped_by_the_terminal_is_running_out_of_descriptors() -> None:
    # gcs_server.err of ray#11309, verbatim: the pager cut "Too many open files" after "Too"
    text = ("E1016 17:14:42.006647171   33721 tcp_server_posix.cc:213]    Failed accept4: Too\n"
            " many open files\n")
    (failed,) = [f for f in parse_lines(OpenFiles, text) if f.KIND == "sys.call_failed"]
    assert failed.errno == "EMFILE" and failed.origin.line == 2


def test_a_sentence_about_many_open_files_is_not_a_failure() -> None:
    text = "The job keeps many open files in its cache directory\n"
    assert not [f for f in parse_lines(OpenFiles, text) if f.KIND == "sys.call_failed"]


def test_a_dataloader_descriptor_dropped_in_transit_is_running_out_of_descriptors() -> None:
    # fixtures/cases/nofile-himp-gnn-7-ancdata (rusty1s/himp-gnn#7), verbatim: Python's recvfds() got no descriptor
    text = (CASES / "nofile-himp-gnn-7-ancdata" / "input" / "error.txt").read_text(encoding="utf-8")
    (failed,) = [f for f in parse_lines(OpenFiles, text) if f.KIND == "sys.call_failed"]
    assert (failed.call, failed.errno, failed.resource) == ("recvmsg", "EMFILE", "file descriptors")


def test_ancdata_with_its_descriptor_is_no_failure() -> None:
    # recvfds() raises only when the count differs from what was sent; a line naming ancdata that arrived is not one
    text = "DEBUG: received 1 items of ancdata from worker 3\n"
    assert not [f for f in parse_lines(OpenFiles, text) if f.KIND == "sys.call_failed"]


def test_ancdata_raise_source_line_of_a_cut_traceback_is_the_same_failure() -> None:
    # fixtures/cases/nofile-speechbrain-912-ancdata-32-workers (speechbrain#912), verbatim: the post stops at the
    # raise's source line, before the rendered message
    text = (CASES / "nofile-speechbrain-912-ancdata-32-workers" / "input" / "train_error.log").read_text(encoding="utf-8")
    (fail,) = [f for f in parse_lines(OpenFiles, text) if f.KIND == "sys.call_failed"]
    assert (fail.call, fail.errno, fail.origin.line) == ("recvmsg", "EMFILE", 6)


def test_orte_error_codes_for_descriptors_are_emfile_and_its_children_twin_is_not() -> None:
    # fixtures/cases/nofile-ompi-users-2011-16979-sge-fd-limit-pipes-oob-86-slots (users list 2011/06/16979), verbatim
    text = (CASES / "nofile-ompi-users-2011-16979-sge-fd-limit-pipes-oob-86-slots" / "input" / "train.log").read_text(encoding="utf-8")
    failed = [f for f in parse_lines(OpenFiles, text) if f.KIND == "sys.call_failed"]
    assert [(f.call, f.errno) for f in failed] == [("pipe", "EMFILE"), ("socket", "EMFILE")]
    children = "ORTE_ERROR_LOG: The system limit on number of children a process can have was reached\n"
    assert not [f for f in parse_lines(OpenFiles, children) if f.KIND == "sys.call_failed"]


def test_orte_limit_lines_as_a_mail_client_wrapped_them_and_mpiruns_help_text() -> None:
    # fixtures/cases/nofile-ompi-users-2010-12215-... (users list 2010/03/12215), verbatim: "ORTE_ERROR_LOG: The system
    # limit" / "on number of network connections a process can open was reached in file", then the help text's
    # "Error: system limit exceeded on number of network connections that can" (the same fact: kept once)
    case = CASES / "nofile-ompi-users-2010-12215-254-procs-one-node-network-connections-rhel-1024" / "input"
    failed = [f for f in parse_lines(OpenFiles, (case / "train.log").read_text(encoding="utf-8")) if f.KIND == "sys.call_failed"]
    assert [(f.call, f.origin.line) for f in failed] == [("socket", 3)]
    help_text = "Error: system limit exceeded on number of network connections that can\n"
    assert [(f.call, f.errno) for f in parse_lines(OpenFiles, help_text)] == [("socket", "EMFILE")]
