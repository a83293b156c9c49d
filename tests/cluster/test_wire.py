"""Facts between ranks travel as JSON dicts; a broken or hostile payload is refused or trimmed, never executed."""
from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from doctor.cluster.wire import MAX_PAYLOAD, decode, encode, fact_from_dict, fact_to_dict
from doctor.facts import Origin
from doctor.facts.cluster import NodeInfo, PairReach
from doctor.facts.env import EnvVar, ShmSize


def test_round_trip_keeps_fields_and_origin() -> None:
    facts = [EnvVar(node="n1", rank=3, name="NCCL_ALGO", value="Ring", source="environ",
                    origin=Origin("environment", 4, "NCCL_ALGO=Ring", "env_vars", "live")),
             ShmSize(node="n1", size=67108864.0, writable=False),
             PairReach(node="n1", peer="n2", host="10.0.0.2", port=4100, outcome="timeout", reachable=False, seconds=3.0)]
    back = decode(encode(3, "n1", facts))
    assert (back.rank, back.node, back.dropped, back.error) == (3, "n1", 0, "")
    assert back.facts == facts
    assert back.facts[0].origin == facts[0].origin


def test_payload_is_json_not_pickle() -> None:
    data = encode(0, "n", [NodeInfo(node="n", gpus=8)])
    body = json.loads(data)
    assert body["schema"] == "doctor.facts/1" and body["facts"][0]["kind"] == "cluster.node"


def test_unknown_kinds_and_bad_types_are_dropped() -> None:
    good = fact_to_dict(NodeInfo(node="n", gpus=8))
    payload = {"schema": "doctor.facts/1", "rank": 1, "node": "n", "facts": [
        good, {"kind": "no.such.kind", "x": 1}, {**good, "gpus": "eight"}, {**good, "gpus": True}, "not a dict",
        {**good, "unknown_field": 1}]}
    out = decode(json.dumps(payload).encode())
    assert out.dropped == 4
    assert [f.gpus for f in out.facts] == [8, 8]


def test_float_field_accepts_int_and_int_field_refuses_fraction() -> None:
    assert fact_from_dict({"kind": "sys.shm", "size": 1024}).size == 1024.0
    assert fact_from_dict({"kind": "cluster.node", "gpus": 2.5}) is None


def test_garbage_and_oversized_payloads_are_refused() -> None:
    assert decode(b"\x80\x81 not json").error
    assert decode(b'{"schema": "other"}').error
    assert "above" in decode(b" " * (MAX_PAYLOAD + 1)).error


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=20))
def test_any_json_decodes_without_raising(value) -> None:
    body = {"schema": "doctor.facts/1", "rank": 0, "node": "n", "facts": [value, {"kind": "cluster.node", "gpus": value}]}
    out = decode(json.dumps(body).encode())
    assert out.dropped + len(out.facts) == 2
