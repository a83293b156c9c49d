"""The fact contract (doctor/facts/base.py): a fact is an immutable, typed record. Each field is set once, by
__init__ or by unpickling; assigning or deleting one afterwards raises, as a frozen dataclass would. Equality and
hash ignore where the fact was read (origin)."""
from __future__ import annotations

import copy
import pickle
from dataclasses import FrozenInstanceError, replace

import pytest

from doctor.facts import FACT_KINDS
from doctor.facts.base import Origin
from doctor.facts.nccl import CallFailed


def test_a_field_cannot_be_reassigned_or_deleted() -> None:
    fact = CallFailed(call="shm_open", errno="ENOSPC", resource="/dev/shm")
    with pytest.raises(FrozenInstanceError):
        fact.errno = "EACCES"          # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del fact.call                  # type: ignore[misc]
    with pytest.raises(AttributeError):
        fact.not_a_field = 1           # type: ignore[attr-defined]
    assert fact.errno == "ENOSPC"


def test_copies_replace_and_pickles_are_equal_facts() -> None:
    fact = CallFailed(call="shm_open", errno="ENOSPC", origin=Origin(source="train.log", line=3))
    for other in (copy.copy(fact), copy.deepcopy(fact), pickle.loads(pickle.dumps(fact))):
        assert other == fact and hash(other) == hash(fact) and other.origin == fact.origin
    changed = replace(fact, errno="EACCES")
    assert changed != fact and changed.errno == "EACCES" and fact.errno == "ENOSPC"


def test_origin_is_not_compared() -> None:
    a = CallFailed(call="shm_open", origin=Origin(source="a.log", line=1))
    b = CallFailed(call="shm_open", origin=Origin(source="b.log", line=9))
    assert a == b and hash(a) == hash(b)


def test_every_kind_makes_immutable_facts_with_its_defaults() -> None:
    for kind, cls in FACT_KINDS.items():
        fact = cls()
        assert fact.KIND == kind
        name = next(iter(n for n in cls.__slots__ if n != "origin"), "node")
        with pytest.raises(FrozenInstanceError):
            setattr(fact, name, getattr(fact, name))
