"""Reading the job from torchrun's or Slurm's environment."""
from __future__ import annotations

import pytest

from doctor.cluster.launch import expand_nodelist, from_env
from doctor.errors import UsageError


def test_torchrun_environment() -> None:
    spec = from_env({"RANK": "3", "WORLD_SIZE": "4", "LOCAL_RANK": "1", "MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "29500",
                     "TORCHELASTIC_RUN_ID": "abc", "TORCHELASTIC_RESTART_COUNT": "0", "TORCHELASTIC_USE_AGENT_STORE": "True"})
    assert (spec.rank, spec.world_size, spec.local_rank, spec.launcher, spec.agent_store) == (3, 4, 1, "torchrun", True)
    assert spec.run_id == "abc.0"


def test_slurm_environment_takes_the_first_node_and_a_job_port() -> None:
    spec = from_env({"SLURM_PROCID": "5", "SLURM_NTASKS": "16", "SLURM_LOCALID": "1", "SLURM_JOB_ID": "123456",
                     "SLURM_JOB_NODELIST": "gpu[07-08,10],login1"})
    assert (spec.rank, spec.world_size, spec.master_addr, spec.master_port, spec.agent_store) == (5, 16, "gpu07", 29956, False)


@pytest.mark.parametrize("env,words", [
    ({}, "needs a job"),
    ({"RANK": "4", "WORLD_SIZE": "4", "MASTER_ADDR": "h", "MASTER_PORT": "1"}, "outside world size"),
    ({"RANK": "0", "WORLD_SIZE": "2", "MASTER_PORT": "1"}, "MASTER_ADDR is not set"),
    ({"RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "h", "MASTER_PORT": "99999"}, "not a TCP port"),
    ({"RANK": "x", "WORLD_SIZE": "2", "MASTER_ADDR": "h", "MASTER_PORT": "1"}, "not a number"),
])
def test_bad_environments_are_usage_errors(env: dict[str, str], words: str) -> None:
    with pytest.raises(UsageError, match=words):
        from_env(env)


@pytest.mark.parametrize("text,hosts", [
    ("node1", ["node1"]),
    ("gpu[01-03]", ["gpu01", "gpu02", "gpu03"]),
    ("a[1,3-4]b,c", ["a1b", "a3b", "a4b", "c"]),
    ("rack1-n[9-11]", ["rack1-n9", "rack1-n10", "rack1-n11"]),
    ("", []),
])
def test_expand_nodelist(text: str, hosts: list[str]) -> None:
    assert expand_nodelist(text) == hosts



def test_layout_tells_apart_two_machines_with_one_host_name() -> None:
    import json
    from datetime import timedelta

    dist = pytest.importorskip("torch.distributed")
    from doctor.cluster.rendezvous import _collect
    store = dist.TCPStore("127.0.0.1", 0, 1, is_master=True, timeout=timedelta(seconds=5), wait_for_workers=False)
    for rank, (node, address) in {0: ("localhost", "10.0.0.1"), 1: ("localhost", "10.0.0.1"),
                                  2: ("localhost", "10.0.0.2"), 4: ("gpu7", "10.0.0.3")}.items():
        store.set(f"join/{rank}", json.dumps({"node": node, "address": address}))
        store.add("joined", 1)
    layout = _collect(store, 5, 0.2)
    assert layout.nodes == ["localhost", "localhost@10.0.0.2", "gpu7"]
    assert layout.node_of(2) == "localhost@10.0.0.2" and layout.leader("localhost") == 0
    assert layout.missing == [3]
