"""Facts from PyTorch Flight Recorder dumps (one per rank) and what aggregation derives across ranks.

Sequence ids are the recorder's own: collective_seq_id for collectives, p2p_seq_id for send/recv, per process
group. -1 means "none recorded".
"""
from __future__ import annotations

from doctor.facts.base import Fact, fact


@fact
class FrDump(Fact):
    """One rank's Flight Recorder dump: its format version and how much it holds."""

    KIND = "fr.dump"
    version: str = ""
    entries: int = 0
    groups: int = 0
    first_record: int = -1         # record_id of the oldest entry kept (a ring buffer drops the oldest)
    world: int = -1                # ranks of the default process group, from pg_config (-1 unknown)
    stacks: bool = False           # entries carry Python frames


@fact
class FrGroupRank(Fact):
    """One rank's view of one process group: where it stands, and its recorded ops in order.

    ops holds one compact line per entry, "c|seq|op|input sizes|output sizes|dtypes|state|timeout_ms" for a
    collective and "p|seq|op|...|peer" for send/recv (aggregate_flight_recorder.py reads them back); the state is
    completed, started or scheduled (a gloo entry that the recorder retired is completed)."""

    KIND = "fr.group_rank"
    pg: str = ""                   # process group name (process_group[0])
    pg_desc: str = ""              # its description (default_pg, undefined, ...)
    group_ranks: str = ""          # global ranks of the group from pg_config, "" when not recorded or long
    group_size: int = -1           # how many ranks pg_config lists for the group (-1 not recorded)
    last_completed: int = -1
    last_completed_op: str = ""
    last_started: int = -1         # the last entry that started (or, for gloo, was entered and not retired)
    last_started_op: str = ""
    first_pending: int = -1        # the first entry not started yet (scheduled), -1 when none
    first_pending_op: str = ""
    status_enqueued: int = -1      # pg_status: last_enqueued_collective
    status_started: int = -1       # pg_status: last_started_collective
    status_completed: int = -1     # pg_status: last_completed_collective
    first_seq: int = -1            # the oldest collective sequence id still in the buffer
    last_seq: int = -1             # the newest collective sequence id recorded
    ops: tuple[str, ...] = ()
    stack: str = ""                # frames of the first op that did not complete, innermost first


@fact
class FrMismatch(Fact):
    """Across the ranks of one process group: the first sequence id where they disagree, and who is to blame.

    disagreement: op (a different collective), sizes, dtypes, behind (never started the op the others started), dead (no
    dump from a rank of the group), p2p (a recv no send matches, or a send no recv matches), all_waiting (every
    rank entered the same op, with the same shapes, and none finished), timeout_short (all agree, but the last op's
    timeout asks for an impossible bandwidth). rank is the first culprit."""

    KIND = "fr.mismatch"
    pg: str = ""
    pg_desc: str = ""
    seq: int = -1
    disagreement: str = ""
    culprits: str = ""             # "2" or "1, 3"
    culprit_op: str = ""           # what the culprit ran at seq ("" when nothing)
    culprit_sizes: str = ""
    culprit_dtypes: str = ""
    op: str = ""                   # what the others ran at seq
    sizes: str = ""
    dtypes: str = ""
    others: str = ""               # the ranks that agree with each other
    witness: int = -1              # one of them, for its evidence line
    behind: str = ""               # ranks whose last op is the oldest
    ahead: str = ""                # ranks whose last op is the newest
    peer: int = -1                 # p2p: the rank waiting on the culprit
    ranks: int = 0                 # ranks of the group
    timeout_ms: int = -1
    nbytes: int = -1               # bytes of the op's first input (float32 unless dtypes say otherwise)
    need_gbps: float = -1.0        # timeout_short: GB/s needed to move nbytes within timeout_ms
    where: str = ""                # the culprit's innermost user frame, "" when no stack was recorded


@fact
class ProcessStack(Fact):
    """Where one rank's main thread stood, from `py-spy dump` (text or --json)."""

    KIND = "stack.process"
    pid: int = -1
    collective: str = ""           # the torch.distributed call the main thread is inside ("" when none)
    where: str = ""                # its innermost frame outside torch, threading and multiprocessing
    frames: str = ""               # the main thread's frames, innermost first, one per line


@fact
class NativeStack(Fact):
    """Where a process stood in a native backtrace (gdb `bt` / `thread apply all bt`): its innermost CUDA or NCCL
    call. A backtrace taken of a live process stuck there is a hang; one after a fatal signal is a crash."""

    KIND = "stack.native"
    function: str = ""             # the innermost CUDA/NCCL function of the backtrace
    waits_in: str = ""             # kernel_launch | device_sync | collective | comm_init | comm_teardown
    signal: str = ""               # the fatal signal gdb reported before it (SIGSEGV ...), "" for a live process


@fact
class StackOutlier(Fact):
    """Across ranks' stacks: the ranks outside any collective while the others wait inside one (aggregation)."""

    KIND = "stack.outlier"
    culprits: str = ""
    where: str = ""                # the first culprit's innermost user frame
    op: str = ""                   # the collective the others wait in
    others: str = ""


@fact
class NcclCommFinding(Fact):
    """NCCL's own view of a communicator (RAS client report, or Inspector logs across ranks): ranks that launched
    fewer operations than the rest (behind), or whose data is missing (missing) or whose process is dead (dead)."""

    KIND = "nccl.comm_finding"
    source: str = ""               # ras | inspector
    comm: str = ""                 # "#0-0 (9b3c41e07f2a6d15)" or the Inspector's communicator id
    finding: str = ""              # behind | missing | dead
    culprits: str = ""
    op: str = ""                   # AllReduce, ... (behind)
    count: int = -1                # the culprits' last operation number (behind)
    majority_count: int = -1       # the others' last operation number
    majority_ranks: int = -1       # how many ranks reached it
    process: str = ""              # "process 88414 on node 10.0.1.12" when the report names it


@fact
class InspectorRank(Fact):
    """One rank's NCCL Inspector log for one communicator: its last collective and its bandwidth."""

    KIND = "nccl.inspector_rank"
    comm: str = ""
    n_ranks: int = -1
    last_sn: int = -1
    last_coll: str = ""
    collectives: int = 0
    mean_busbw_gbs: float = -1.0
    max_exec_us: int = -1
