"""singleton_ranks: several processes that each print 'rank 0 of 1' (verbatim lines of the users-list threads)."""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.singleton_ranks import SingletonRankLines

MPI4PY = "Hello, World! I am process 0 of 1 on ferrari.\n"          # users list 2012/09/20283
WRF = " starting wrf task            0  of            1\n"           # users list 2014/04/24178


def _singletons(text: str) -> list[tuple[int, int]]:
    return [(f.processes, f.origin.line) for f in parse_lines(SingletonRankLines, text, source="t.log", node="n")]


def test_copies_that_each_are_rank_zero_of_one() -> None:
    assert _singletons("mpirun -np 3 python hello.py\n" + MPI4PY * 3) == [(3, 2)]
    assert _singletons(WRF * 4) == [(4, 1)]


def test_one_process_alone_is_not_a_fault() -> None:
    assert _singletons(MPI4PY) == []


def test_ranks_of_a_larger_world_and_other_counts_are_not_read() -> None:
    text = ("Hello, World! I am process 0 of 10 on n1.\nHello, World! I am process 0 of 2 on n1.\n"
            "Epoch 0 of 1\nEpoch 0 of 1\nrank 0 of 1.5\nrank 0 of 1.5\n"
            "0 of 1 updated replicas are available...\n0 of 1 updated replicas are available...\n")
    assert _singletons(text) == []


def test_the_other_wordings_of_held_out_batch_nn() -> None:
    lines = ["Hello, World. I am 0 of 1\n",                                                 # users list 2010/07/13530
             "Hello, world!  I am 0 of 1\n",                                                # users list 2009/04/8967
             "0 of 1:  Hello world!\n",                                                     # users list 2006/02/0658
             "Hello world from master running process 0 of 1\n",                           # StarCluster#533
             "Hello world from processor fv-az1964-164, rank 0 out of 1 processors\n",     # MPI.jl#899
             "SIZE: 1 RANK: 0\n"]                                                           # openPMD-api#1739
    for line in lines:
        assert _singletons(line * 2) == [(2, 1)], line
    assert _singletons("SIZE: 4 RANK: 0\nSIZE: 4 RANK: 1\nI am 0 of 12\nI am 0 of 12\n") == []


def test_one_process_runs_one_after_the_other_at_a_prompt_are_not_copies() -> None:
    # devel list 2013/09/12842 (held-out batch NR), verbatim: a C and a Fortran hello world run in turn
    text = ("[jsquyres_at_savbu-usnic-a mpi]$ ./gnumyhello\n"
            "Hello, world, I am 0 of 1\n"
            "Failed to allocate\n"
            "[jsquyres_at_savbu-usnic-a mpi]$ ./gnumyhello_f90\n"
            " Hello, world, I am            0  of            1\n")
    assert _singletons(text) == []
    # the same prompt before a launch of several copies: those copies count
    assert _singletons("$ mpirun -np 2 ./gnumyhello\n" + "Hello, world, I am 0 of 1\n" * 2) == [(2, 2)]


def test_a_root_prompt_ends_the_count_too() -> None:
    text = "root@node1:~# ./hello\n" + "Hello, world, I am 0 of 1\n" + "root@node1:~# ./hello_f90\n" + "Hello, world, I am 0 of 1\n"
    assert _singletons(text) == []
