"""Processes that each call themselves rank 0 of a world of 1: a launcher started N copies, none joined the others.

An MPI program built against one MPI and started by another's mpirun (or started with no launcher that its MPI
knows) finds no job to join: MPI_Init makes each process a singleton, MPI_COMM_WORLD of size 1, and every copy prints
the rank line a hello-world or a solver prints at start. One such line is a one-process run; two or more are copies
that never formed one job (Open MPI's FAQ; users list 2014/04/24178, WRF's "starting wrf task 0 of 1" four times
under `mpirun -np 4`, and 2012/09/20283, mpi4py's "I am process 0 of 1" seventy times: both an mpirun of another MPI).

The same lines come from an MPI package broken the same way, its own mpiexec included (Ubuntu 24.04's MPICH:
openPMD-api#1739, MPI.jl#899): a known bug, not a mismatch. Held-out batch NN: six of eight threads a mismatch.

Sample input:
    Hello, World! I am process 0 of 1 on ferrari.
     starting wrf task            0  of            1
    Hello world from processor fv-az1964-164, rank 0 out of 1 processors
    0 of 1:  Hello world!
    SIZE: 1 RANK: 0
"""
from __future__ import annotations

from doctor.facts.launch import SingletonRanks
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.regex import lazy_compile

# the wordings of hello-worlds and solvers: "process 0 of 1", "task 0 of 1", "rank 0 out of 1 processors", "I am 0 of
# 1", MPICH's examples' "0 of 1:  Hello world!" at the start of a line (with its colon: "0 of 1 pods ready" and the
# like are progress counters), "SIZE: 1 RANK: 0"
_RANK_ZERO_OF_ONE = lazy_compile(r"(?i)\b(?:rank|process(?:or)?|proc|task|worker|I am)\s*[:#=]?\s*0\s+(?:of|out of)\s+1\b(?![.\d])"
                                 r"|^\s*0\s+of\s+1:|\bsize\s*[:=]\s*1\s*,?\s*rank\s*[:=]\s*0\b")

# a shell prompt before a command ("[user@host dir]$ ./hello", "user@host:~$ mpirun ...", "$ ./hello", "% ./hello"): the
# lines after it are another program's output. Two one-process runs one after the other are no fault (devel list
# 2013/09/12842, held-out batch NR: a C and a Fortran hello world, each "I am 0 of 1", run in turn at a prompt).
# Looser than the prompts of doctor/probing/hosts.py, which must name a host: here any command line's start will do,
# the archive's masked "[jsquyres_at_savbu-usnic-a mpi]$" and a bare "$ " included.
_PROMPT = lazy_compile(r"^\s*(?:\[[^\]\n]+\][$#%]|[\w.\-]+@[\w.\-]+\S*[$#%>]|[$%])\s")
PROMPT_WORDS = ("]$ ", "]# ", "]% ", "~$ ", "~# ", "$ ./", "$ mpirun", "$ mpiexec", "$ srun", "$ python", "% ./",
                "# ./", "# mpirun")
ZERO_OF_ONE_WORDS = ("0 of", "0  of", "0 out of", "RANK: 0", "rank: 0", "Rank: 0", "rank=0", "RANK=0")


class SingletonRankLines(LineProbe):
    name = "singleton_ranks"
    yields = ("launch.singleton_ranks",)
    # the prompts' own ends, not bare "$ ", "% ", "# ": those fill progress bars ("####  |") and a huge line keeps only
    # a window around its first trigger (tests/test_hostile_inputs.py)
    triggers = ZERO_OF_ONE_WORDS + PROMPT_WORDS

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.first: tuple[int, str] | None = None
        self.count = 0

    def feed(self, line_no: int, line: str) -> None:
        if any(w in line for w in ZERO_OF_ONE_WORDS) and _RANK_ZERO_OF_ONE.search(line):
            self.count += 1
            self.first = self.first or (line_no, line)
        elif self.count and _PROMPT.match(line):    # one command's output ends where the next command starts
            self.finish()
            self.first, self.count = None, 0

    def finish(self) -> None:
        if self.first and self.count >= 2:
            self.ctx.emit(SingletonRanks, *self.first, processes=self.count)
            self.first, self.count = None, 0
