"""Error-looking lines, whatever wrote them: the raw material of an honest "unknown".

Every other probe reads lines it understands; this one keeps, per input, the first and the last few lines that
look like a failure (NCCL WARN, a Python exception line, `Error:`/`ERROR`/`FATAL`, UCX's `file.c:N  Fatal:`, `failed`,
a fatal signal, NCCL's return-code trace `<file>:<line> -> <code>`), so that a report can list those no rule
explained instead of saying nothing was found. A traceback cut before its exception line (a pasted fragment) still shows where it
failed: its last frame (or its header, when no frame came) is kept as form "traceback".

Sample input:
    node1:3012:3012 [1] NCCL WARN Cuda failure 'invalid device function'
    RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
    [rank1]: torch.distributed.DistBackendError: [1] is setting up NCCL communicator and retrieving ncclUniqueId
    node1:2330:2658 [2] NCCL INFO bootstrap.cc:270 -> 2
"""
from __future__ import annotations

import re
from collections import deque

from doctor.facts.logline import ErrorLine
from doctor.probing.contract import LineProbe
from doctor.probing.lines import who
from probes.nccl_errors import NOTICE_WARNS, RAS_NOTICE

FIRST, LAST = 12, 8         # lines kept per input: the first failures and the last (a traceback's end)

# form -> pattern, first match wins. Each pattern reads the line after its host/rank prefix.
FORMS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("nccl_warn", re.compile(r"\bNCCL WARN\b")),
    # an exception line; Ray re-raises a task's exception under its own with the cause in brackets:
    # "ray.exceptions.RayTaskError(DistStoreError): ray::ImplicitFunc.train() (...)" (neuralforecast#934, batch IK)
    ("exception", re.compile(r"^\s*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Failure)"
                             r"(?:\((?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)\))?(?::|\s*$)")),
    # an exception named with its package in the middle of a line: a JVM log's "Lost task 1.0 ... (executor 0):
    # org.openucx.jucx.UcxException: No resources are available ..." (cudf-spark#6572, held-out batch EW)
    ("exception", re.compile(r"\b(?:[a-z_]\w*\.){2,}[A-Z]\w*(?:Error|Exception): \S")),
    ("signal", re.compile(r"Segmentation fault|core dumped|\bSIG(?:SEGV|ABRT|BUS|KILL)\b|^\s*Killed\s*$|Aborted"
                          r"|\*\*\* Process received signal \*\*\*")),   # Open MPI's (and PMIx's) crash banner
    # the C++ runtime aborting on an exception nobody caught (SIGABRT follows): "terminate called after throwing an
    # instance of 'ccl::v1::exception'" (a collective library's worker, intel-extension-for-pytorch#640), 'c10::Error'
    ("signal", re.compile(r"terminate called after throwing an instance of")),
    # Windows' segmentation fault: "CNTK: Caught Win32 exception 0xc0000005: Access violation." (CNTK#913)
    ("signal", re.compile(r"\bAccess violation\b")),
    # UCX's crash handler (ucs/debug): "==== backtrace (tid:  22472) ====" opens the stack it prints on a fatal signal
    # or a failed assertion, nothing else; the signal's own line may be missing from a paste (ucx#3776, held-out LI)
    ("signal", re.compile(r"(?:^|[:>])\s*==== backtrace(?: \(tid:\s*\d+\))? ====\s*$")),
    ("error", re.compile(r"\b(?:ERROR|FATAL|Fatal errors?|fatal errors?)\b|\b[Ee]rror:")),
    # MPI's error handler aborting the job: Open MPI's banner "*** An error occurred in MPI_Bcast" and its class
    # "*** MPI_ERR_TRUNCATE: message truncated" (users list 2007/10/4133), whatever the application logged around them
    ("error", re.compile(r"\*\*\* An error occurred in MPI_\w+|\bMPI_ERR_[A-Z_]+\b")),
    # an error message that opens a line with "Error <doing>" and no colon: Hydra's "Error merging 'config.yaml' with
    # schema", "Error executing job with overrides: [...]", "Error instantiating ...", "Error locating target ..."
    # (Lightning#15545, held-out batch IF: the relaunched ranks' own failure)
    ("error", re.compile(r"^\s*Error (?:[a-z]+ing|while|during|in call to)\b")),
    # oneCCL's (Intel's collective library) severity tag: "|CCL_ERROR| worker.cpp:338 ccl_worker_func: ..." (its
    # |CCL_WARN| lines are notices: affinity and launcher fallbacks that a working run prints too)
    ("error", re.compile(r"\|CCL_ERROR\|")),
    ("error", re.compile(r"\.(?:c|h|cc|cpp):\d+\s+(?:UCX\s+)?Fatal: ")),   # UCX's ucs_fatal(): "ud_ep.c:270  Fatal: ..."
    ("failed", re.compile(r"\b(?:failed|FAILED|Failed)\b")),
    # glog's severity F (fatal: the process aborts after it), as JAX/XLA, TensorFlow and Paddle print it:
    # "F0926 17:26:32.075587  157988 client.h:77] Terminating process because the JAX distributed service detected
    # fatal errors." (JAX's multi-process docs)
    ("error", re.compile(r"^\s*\[?F\d{4} \d\d:\d\d:\d\d\.\d+\s")),
    ("error", re.compile(r"\b[Uu]nexpected\b[\w ]{0,40}\b(?:error|ERROR)\b")),   # "Unexpected BUS error encountered in ..."
    # Open MPI's help texts ("Open MPI tried to bind a new process, but something went wrong.") and their field
    # "  Error message:     hwloc_set_cpubind returned ..." (ompi#12470)
    ("failed", re.compile(r"\bsomething went wrong\b|^\s*Error message:\s+\S")),
    # a launcher reporting that a process it started exited badly: mpirun/prterun's "... exited with non-zero status",
    # "1 process returned a non-zero exit code. Per user-direction, the job has been aborted." (nccl#241), and Open
    # MPI's "mpirun noticed that the job aborted, but has no info as to the process that caused that situation."
    # (users list 2010/09/14562: all the output of a job whose two hosts ran two Open MPI releases)
    ("failed", re.compile(r"\b(?:exited with|returned(?: a)?) non-zero (?:exit )?(?:code|status)\b|\bjob has been aborted\b"
                          r"|\bnoticed that the job aborted\b")),
    # a severity tag of its own: libfabric's fabtests "[error] util/pingpong.c:1580: fi_av_insert: ..." (libfabric#12673)
    ("error", re.compile(r"^\s*\[(?:error|ERROR)\]\s")),
    # a library refusing the version it found: UCX's "UCP API version is incompatible: required >= 1.19, actual
    # 1.16.0" (nixl#1023, held-out batch EW), which says neither error nor failed
    ("error", re.compile(r"\bversion (?:is )?incompatible\b|\bincompatible (?:API |library )?version\b", re.I)),
    # a CUDACHECK macro's report, with no colon after "error": vLLM's custom all-reduce "Cuda error
    # /workspace/csrc/custom_all_reduce.cuh:143 'invalid resource handle'" (vllm#52778, held-out batch GX),
    # nccl-tests' "Test CUDA failure common.cu:941 '...'", CUDA samples' "CUDA error at bandwidthTest.cu:256 code=802"
    ("error", re.compile(r"\b(?:CUDA|Cuda) (?:error|failure)(?: \d+)?(?: at)? (?:\S+\.(?:cuh?|cc|cpp|c|h):\d+|'[^']+')")),
)
# glog's severities E and F in the short form NIXL and other C++ libraries print, no time stamp: "E ucx_utils.cpp:585]
# VRAM memory is detected as host by UCX." (TensorRT-LLM#18373, nixl#1628, held-out batch LL). Read on the raw line:
# the host/rank prefix reader takes a lone capital for a prefix.
SHORT_SEVERITY = re.compile(r"^\s*[EF] [\w./-]+\.(?:cc|cpp|c|h|hpp):\d+\]?\s")
# NCCL's NCCLCHECK trace at INFO level: a call returned a failing ncclResult_t (1 cuda .. 6 remote error).
NCCL_TRACE = re.compile(r"NCCL INFO [\w/.\-]+\.(?:cc|cu|h|c|cpp):\d+(?: \([\w:~<>]+\))? -> [1-6]\b")   # 2.2x+: "(func)"
TRACEBACK = re.compile(r"Traceback \(most recent call last\):")
# Open MPI's help blocks that say of themselves they are no failure: "WARNING: Open MPI tried to bind a process but
# failed.  This is a / warning only; your job will continue, though performance may be degraded." (g-adopt#219): the
# block's lines (its title two lines up, its "Error message:" field below) are not failure lines. The block ends at its
# dashed rule or after WARNING_ONLY_SPAN lines.
WARNING_ONLY = re.compile(r"\bwarning only\b", re.IGNORECASE)
WARNING_ONLY_SPAN = 10
BLOCK_RULE = re.compile(r"^\s*-{20,}\s*$")
FRAME = re.compile(r'^\s*File "[^"]+", line \d+, in \S+')
# Lines that say "error" without being one: INFO chatter, counters, traceback frames, warnings.
NOT_ERRORS = re.compile(r"NCCL INFO|\b[A-Z]\w*Warning\b|errors?\s*[:=]\s*0\b"
                        # a test summary's counter of none: "Total: 28, Passed: 28, Failed: 0, Waived: 0" (gdrcopy's sanity)
                        # and a counter of none named by its plural: vLLM's benchmark "Failed requests:                         0"
                        r"|\b(?:[Ff]ailed|FAILED|[Ff]ailures?)(?: [a-z]+s)?\s*[:=]\s*0\b"
                        # a counter of none, first in a line or in a list ("5 passed, 0 failed", "(..., 0 failed)");
                        # not an identifier ("Execution of replica 0 failed", XLA's words)
                        r"|(?:^|[,;:(]\s*)0 (?:errors?|failed|failures?)\b"
                        # nccl-tests' summary "# Out of bounds values : 0 OK" ("16 FAILED" is a failure: nccl#1261)
                        r"|^\s*File \"|warnings\.warn|#\s*Out of bounds values\s*:\s*0\s+OK"
                        r"|\bDEBUG\b|\bINFO\b(?!.*\bERROR\b)"
                        # UCX's DIAG level sits below WARN: "UCX  DIAG  rdma_create_event_channel failed: No such
                        # device" on a host with no RDMA-CM (ucx#11261), "failed to create directory '/run/user/0/ucx'"
                        # of its VFS on a run that finished (an MLPerf result log): diagnostics, no failure
                        r"|\bUCX\s+DIAG\b"
                        r"|^\s*\[?I\d{4} \d\d:\d\d:\d\d\.\d+ "   # glog/c10 severity I (info): "[I1203 06:26:06.01 ..."
                        r"|^\s*(?:\+\s*)?(?:echo|printf)\s"   # a job script's own message text, not its output
                        # a setting echoed: "log_level: ERROR", or an environment dump's "HOROVOD_LOG_LEVEL=ERROR",
                        # "VLLM_LOGGING_LEVEL=ERROR" (ALCF's env_aws.dat, held-out batch FN; its own literal: cheaper)
                        r"|(?i:\blog[_ -]?level)\s*[:=]?\s*['\"]?(?:ERROR|FATAL|CRITICAL)\b"
                        r"|_LOG(?:GING)?_LEVEL=(?:ERROR|FATAL|CRITICAL)\b"
                        # the kernel loading any unsigned out-of-tree module (the nvidia driver, DKMS builds): a notice
                        # ("nvidia: module verification failed: signature and/or required key missing - tainting kernel")
                        r"|module verification failed: signature and/or required key missing"
                        # PyTorch's quickstart tutorial's evaluation heading, its figures on the next line ("Test Error: \n
                        # Accuracy: 47.1%, Avg loss: 1.43"): a test set's error rate, no failure (held-out batch FC)
                        r"|^\s*Test Error:\s*$"
                        # Slurm's cancel with no reason after it: someone ran scancel ("slurmstepd: error: *** JOB 1809579
                        # ON r8i3n1 CANCELLED AT 2021-05-23T08:45:57 ***", a benchmark stopped by hand: held-out batch LW).
                        # "... DUE TO TIME LIMIT / NODE FAILURE / TASK FAILURE / PREEMPTION ***" names a reason: read
                        r"|\*\*\* (?:JOB|STEP) [\w.+]+ ON \S+ CANCELLED AT \S+ \*\*\*\s*$")


# What a tool prints when the host has none of its kind: no failure line (the live probes skip on the same text)
NOTHING_HERE = {
    "rdma_link": "Failed to open NETLINK_RDMA socket",   # rdma(8) on a kernel without RDMA netlink: no RDMA devices
}


def classify(line: str) -> str:
    """The form of an error-looking line, or "" when it is not one."""
    rest = who(line, "").body
    if NCCL_TRACE.search(rest):
        return "nccl_trace"
    if NOT_ERRORS.search(rest) and "NCCL WARN" not in rest:
        return ""
    if "WARN" in rest and any(notice in rest for notice in NOTICE_WARNS):   # an old NCCL's notice, INFO since 2.5
        return ""
    if "ras/" in rest and RAS_NOTICE.search(rest):   # NCCL's RAS socket taken by another rank of the node: a notice
        return ""
    if "NETLINK" in rest and any(notice in rest for notice in NOTHING_HERE.values()):
        return ""
    return next((form for form, pattern in FORMS if pattern.search(rest)), "error" if SHORT_SEVERITY.match(line) else "")


class ErrorLines(LineProbe):
    name = "error_lines"
    yields = ("log.error_line",)
    triggers = ("NCCL WARN", "Error", "ERROR", "error:", "Exception", "FATAL", "fatal error", "failed", "FAILED",
                "Failed", "Failure", "Fatal: ", "non-zero", "has been aborted", "job aborted", "[error]", "went wrong", "Error message:", "Segmentation fault", "core dumped", "Killed", "Aborted", "SIGSEGV", "SIGABRT",
                "SIGBUS", "SIGKILL", "Access violation", "==== backtrace", "detected as host by UCX", "Process received signal", "terminate called", "Exit", "Interrupt", " -> ", "nexpected", "Traceback (most recent call last)", 'File "',
                "warning only", "WARNING ONLY", "Warning only", "--------------------",
                "ncompatible", "CUDA error", "Cuda error", "CUDA failure", "Cuda failure", "An error occurred in MPI_",
                "MPI_ERR_")

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.first: list[tuple[int, str, str]] = []
        self.last: deque[tuple[int, str, str]] = deque(maxlen=LAST)
        self.open_traceback: tuple[int, str] | None = None   # a traceback's header or last frame, no exception yet
        self.quiet_until = 0          # inside a help block that calls itself a warning only: its lines are no failure

    def feed(self, line_no: int, line: str) -> None:
        if BLOCK_RULE.match(line):
            self.quiet_until = 0
            return
        if WARNING_ONLY.search(line):
            self._forget_from(line_no - 2)
            self.quiet_until = line_no + WARNING_ONLY_SPAN
            return
        if line_no <= self.quiet_until:
            return
        if TRACEBACK.search(line) or FRAME.match(who(line, "").body):
            self.open_traceback = (line_no, line)
            return
        form = classify(line)
        if not form:
            return
        self.open_traceback = None   # the traceback ended in an error line of its own
        self._keep(line_no, line, form)

    def _forget_from(self, line_no: int) -> None:
        """Drop the lines kept from line_no on (the start of a block that turned out to be a warning only)."""
        self.first = [k for k in self.first if k[0] < line_no]
        self.last = deque((k for k in self.last if k[0] < line_no), maxlen=LAST)

    def _keep(self, line_no: int, line: str, form: str) -> None:
        if len(self.first) < FIRST:
            self.first.append((line_no, line, form))
        else:
            self.last.append((line_no, line, form))

    def finish(self) -> None:
        if self.open_traceback:      # the input ends inside a traceback: its exception line was not pasted
            self._keep(*self.open_traceback, "traceback")
        kept = [*self.first, *self.last]
        if any(form not in ("nccl_trace", "traceback") for _, _, form in kept):
            kept = [k for k in kept if k[2] != "nccl_trace"]   # NCCL's WARN or the exception says it better
        for line_no, line, form in kept:
            self.ctx.emit(ErrorLine, line_no, line, form=form, text=who(line, "").body.strip()[:300])
