"""nccl-tests output (all_reduce_perf and friends): devices, result rows, average bus bandwidth, whether it finished.

Sample input:
    # nThread 1 nGpus 4 minBytes 8 maxBytes 268435456 step: 2(factor) warmup iters: 5 iters: 20 validation: 1
    #   Rank  0 Pid  15833 on    host1 device  0 [0x02] GeForce GTX 1080 Ti
       Rank  0 uses device  0 [0x05] Tesla M40 24GB          (NCCL 1.x's test/single/*_test: no host, no '#')
    #     134217728      33554432     float     sum      -1   6913.0   19.42   16.99      0   6917.1   19.40   16.98      0
    # Out of bounds values : 0 OK
    # Avg bus bandwidth    : 33.3227

Each result row also becomes a bench.collective_size fact (size, out-of-place time/algbw/busbw, #wrong of both
columns), so the bandwidth large messages reach can be judged against an expectation and a row with wrong
elements can be named. The `-J file.json` output is read by probes/nccl_tests_json.py into the same facts.
"""
from __future__ import annotations


from doctor.facts.gpu import GpuDevice
from doctor.facts.measure import CollectiveSize
from doctor.facts.nccl import NcclVersion
from doctor.facts.topo import CollectiveBench
from doctor.probing.contract import LineProbe, ParseContext
from probes.nvlink_status import consumer_gpu
from doctor.probing.lines import who
from doctor.probing.regex import lazy_compile

_HEADER = lazy_compile(r"#\s*nThread\s+\d+\s+nGpus\s+(?P<g>\d+)")
_DEVICE = lazy_compile(r"#\s*Rank\s+(?P<r>\d+)(?:\s+Group\s+\d+)?\s+Pid\s+\d+\s+on\s+(?P<host>\S+)\s+device\s+(?P<d>\d+)\s+\[(?P<bus>[^\]]+)\]\s+(?P<name>.+?)\s*$")
_DEVICE_V1 = lazy_compile(r"^\s*#?\s*Rank\s+(?P<r>\d+)\s+uses device\s+(?P<d>\d+)\s+\[(?P<bus>[^\]]+)\]\s+(?P<name>.+?)\s*$")
_ROW = lazy_compile(r"^\s*\d+\s+\d+\s+(?:float|half|double|bfloat16|int8|uint8|int32|uint32|int64|uint64|fp8\w*)\s+\w+\s")
# the summary; also without its '#', as a paste rendered by Markdown prints it (a line opening with '# ' is a heading)
_AVG = lazy_compile(r"(?:^\s*|#\s*)Avg bus bandwidth\s*:\s*(?P<bw>[\d.]+)")
_WRONG = lazy_compile(r"(?:^\s*|#\s*)Out of bounds values\s*:\s*(?P<n>\d+)")
_NRANKS = lazy_compile(r"nranks (?P<n>\d+)")
MAX_PREFIXES = 4096     # NCCL line prefixes remembered (processes x threads): bounded on hostile input
# the column header, with or without its '#' and redop/root columns (nccl-tests before 2019 printed neither for
# all_gather, and a largest 'error' where newer ones count '#wrong')
_COLUMNS = lazy_compile(r"^\s*#?\s*size\s+count\s+type\b(?:\s+redop(?P<root>\s+root)?)?")
OUT_OF_BOUNDS = 0.05    # a largest error this big is beyond nccl-tests' bounds for every type (1e-2 for half at most)
_LIBRARY = lazy_compile(r"#\s*nccl-tests version \S+ nccl-headers=\d+ nccl-library=(?P<code>\d+)")
# nccl-tests' own CUDACHECK/NCCLCHECK/TESTCHECK reports: "<host>: Test CUDA failure common.cu:941 'system not yet
# initialized'", " .. <host> pid 54340: Test failure common.cu:891"
_FAILED = lazy_compile(r"\bTest (?:CUDA |NCCL )?failure\b")
_BIN = lazy_compile(r"(?P<op>all_reduce|all_gather|reduce_scatter|alltoall|broadcast|reduce|sendrecv)_perf")


class NcclTests(LineProbe):
    name = "nccl_tests"
    yields = ("bench.collective", "gpu.device", "nccl.version")
    triggers = ("nccl-library=", "nThread", "Pid", "float", "half", "bfloat16", "Avg bus bandwidth", "Out of bounds", "nranks", "_perf",
                "Test failure", "Test CUDA failure", "Test NCCL failure", "] NCCL ", " double ", " int8 ", " uint8 ", " int32 ", " uint32 ", " int64 ", " uint64 ", " fp8", "redop", "uses device")

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.state: dict[str, object] = {"gpus": -1, "nranks": -1, "avg": -1.0, "rows": 0, "wrong": 0, "complete": False,
                                         "started": False, "failed": False, "op": ""}
        self.hosts: set[str] = set()
        self.nccl_hosts: set[str] = set()  # hosts in NCCL's own 'host:pid:tid [dev] NCCL ...' prefixes of this output
        self.nccl_heads: dict[str, str] = {}   # such a prefix -> its host ('' when the line is no NCCL_DEBUG line)
        self.anchor: tuple[int, str] | None = None
        self.wrong_column = True          # '#wrong' (counts); nccl-tests before 2019 printed a largest 'error' instead
        self.root_column: bool | None = None   # nccl-tests since 2.10 print a root column after redop
        self.sizes: list[tuple[int, str, dict[str, float | int]]] = []
        self.summaries: list[float] = []   # every '# Avg bus bandwidth' of this output, in order
        self.rows_at_summary: object = -1
        self.back_to_back = 0
        self.rows_at_header: object = -1
        self.copies = 0                    # extra copies of one test seen running side by side (headers or equal summaries)
        self.section: list[tuple[int, str, str]] = []   # (size, type, redop) of the rows since the last header/summary
        self.interleaved = 0               # extra copies seen as one size's rows printed together (see _interleaved)
        self.factors: list[float] = []     # busbw / algbw of the 'sum' rows (see ranks_from_factor)

    def _library(self, line_no: int, line: str, code: int) -> None:
        """nccl-tests 2.13+ print the NCCL they run on as NCCL_VERSION_CODE: 21903 is 2.19.3 (2.9 and later)."""
        if code >= 20900:
            version = f"{code // 10000}.{code // 100 % 100}.{code % 100}"
            self.ctx.emit(NcclVersion, line_no, line, version=version, version_num=code)

    def feed(self, line_no: int, line: str) -> None:
        """Reads the line after its writer prefix (srun --label 'N: ', pdsh 'host: '); facts quote the whole line."""
        if "] NCCL " in line and (host := self._nccl_host(line)):
            self._nccl_line(line, host)     # NCCL_DEBUG output between the test's own lines
            return
        s, raw, writer = self.state, line, who(line, "")
        line = writer.body
        if writer.node and line.lstrip().startswith("NCCL "):   # the same behind another prefix (pdsh 'host: NCCL ...')
            self._nccl_line(line, writer.node)
            return
        m = _BIN.search(line)
        if m and not s["op"]:
            s["op"] = m["op"]
        if (m := _LIBRARY.search(line)):
            self._library(line_no, raw, int(m["code"]))
        if (m := _HEADER.search(line)):
            if s["started"] and self.rows_at_header == s["rows"]:
                self.copies += 1           # a second header before any result row: another copy started alongside
            self.rows_at_header = s["rows"]
            self._end_section()
            s["gpus"], s["started"] = int(m["g"]), True
            self.anchor = self.anchor or (line_no, raw)
        elif (m := _DEVICE.search(line)):
            self.hosts.add(m["host"])
            s["started"] = True
            self.ctx.emit(GpuDevice, line_no, raw, index=int(m["d"]), bus_id=m["bus"], name=m["name"],
                          consumer=consumer_gpu(m["name"]), node=m["host"])
        elif (m := _DEVICE_V1.search(line)):    # one process drives every GPU of this node
            s["started"] = True
            self.anchor = self.anchor or (line_no, raw)
            self.ctx.emit(GpuDevice, line_no, raw, index=int(m["d"]), bus_id=m["bus"], name=m["name"],
                          consumer=consumer_gpu(m["name"]))
        elif _ROW.search(line):
            s["rows"] = int(s["rows"]) + 1
            self._size_row(line_no, line, raw)
        elif (m := _COLUMNS.search(line)):
            self.wrong_column, self.root_column = "error" not in line.split(), bool(m["root"])
        elif (m := _AVG.search(line)):
            s["avg"], s["complete"] = float(m["bw"]), True
            self.anchor = (line_no, raw)
            if self.summaries and self.rows_at_summary == s["rows"]:
                self.back_to_back += 1     # no result row since the last summary: two copies finished together
                if abs(float(m["bw"]) - self.summaries[-1]) <= 0.05 * max(float(m["bw"]), self.summaries[-1]):
                    self.copies += 1
            self.summaries.append(float(m["bw"]))
            self.rows_at_summary = s["rows"]
            self._end_section()
        elif _FAILED.search(line):
            s["failed"] = True
        elif (m := _WRONG.search(line)):
            s["wrong"] = max(int(s["wrong"]), int(m["n"]))
        elif "NCCL INFO" in line and (m := _NRANKS.search(line)):
            s["nranks"] = max(int(s["nranks"]), int(m["n"]))

    def _nccl_host(self, line: str) -> str:
        """The host of a 'host:pid:tid [dev] NCCL ...' line, '' when the line is no NCCL_DEBUG line. Every process
        repeats its prefix on each of its (many) NCCL lines: each prefix is split once."""
        head = line[:line.index("] NCCL ")]
        host = self.nccl_heads.get(head)
        if host is None:
            writer = who(line, "")
            host = writer.node if writer.body.lstrip().startswith("NCCL ") else ""
            if len(self.nccl_heads) < MAX_PREFIXES:
                self.nccl_heads[head] = host
        return host

    def _nccl_line(self, body: str, host: str) -> None:
        """A prefixed NCCL_DEBUG line: the host that printed it, and NCCL's 'nranks N'."""
        self.nccl_hosts.add(host)
        if "nranks" in body and "NCCL INFO" in body and (m := _NRANKS.search(body)):
            self.state["nranks"] = max(int(self.state["nranks"]), int(m["n"]))

    def _size_row(self, line_no: int, line: str, raw: str) -> None:
        """size count type redop [root] time algbw busbw #wrong time algbw busbw #wrong: out-of-place figures,
        wrong elements of both columns."""
        tokens = line.split()
        redop = tokens[3] if tokens[3].isalpha() else ""     # a word (sum, none...) when the column exists
        numbers = tokens[4:] if redop else tokens[3:]
        has_root = self.root_column if self.root_column is not None else len(numbers) >= 9
        if has_root and redop:
            numbers = numbers[1:]
        values = [_number(x) for x in numbers[:8]]
        if len(values) < 4 or values[0] is None or values[2] is None:
            return
        self.section.append((int(tokens[0]), tokens[2], redop))
        if redop == "sum" and values[1] is not None and values[1] >= 0.5:
            self.factors.append(values[2] / values[1])      # busbw / algbw of a row fast enough to read it from
        wrong = sum(_wrong(v, self.wrong_column) for v in (values[3], values[7] if len(values) > 7 else None))
        self.state["wrong"] = int(self.state["wrong"]) + wrong
        self.sizes.append((line_no, raw, {"size": int(tokens[0]), "time_us": float(values[0]),
                                           "algbw": float(values[1] or 0), "busbw": float(values[2]), "wrong": wrong}))

    def _end_section(self) -> None:
        self.interleaved = max(self.interleaved, _interleaved(self.section))
        self.section = []

    def finish(self) -> None:
        s = self.state
        self._end_section()
        self.copies = max(self.copies, self.interleaved)
        for line_no, line, values in self.sizes:
            self.ctx.emit(CollectiveSize, line_no, line, op=str(s["op"]), **values)
        if not (s["started"] or s["complete"]):
            return
        if int(s["nranks"]) < 0 and s["op"] in ("", "all_reduce"):
            s["nranks"] = ranks_from_factor(self.factors)
        line_no, line = self.anchor or (0, "")
        self.ctx.emit(CollectiveBench, line_no, line, op=str(s["op"]), nranks=int(s["nranks"]), gpus=int(s["gpus"]),
                      hosts=max(len(self.hosts), len(self.nccl_hosts)) or -1, avg_busbw=float(s["avg"]), results=int(s["rows"]),
                      wrong=int(s["wrong"]), complete=bool(s["complete"]), started=bool(s["started"]),
                      failed=bool(s["failed"]),
                      multi_node=self._multi_node(), summaries=len(self.summaries), summary_spread=_spread(self.summaries),
                      back_to_back_summaries=self.back_to_back, copies_together=self.copies)

    def _multi_node(self) -> bool:
        """The device table's hosts, or NCCL_DEBUG's own line prefixes when the table names fewer (an excerpt that
        starts after the table, one '# Rank' line left): each process prefixes its lines with its host name."""
        hosts = max(len(self.hosts), len(self.nccl_hosts))
        return multi_node(hosts, int(self.state["nranks"]), int(self.state["gpus"]))


def multi_node(hosts: int, nranks: int, gpus: int) -> bool:
    """Several hosts in the device table, or more ranks than any single node here has GPUs (8 at most)."""
    return hosts > 1 or (nranks > 8 and (gpus < 0 or nranks > gpus))


def ranks_from_factor(factors: list[float]) -> int:
    """The rank count an all_reduce table implies where nothing names it: nccl-tests prints busbw = algbw x 2(n-1)/n
    for all_reduce (its PERFORMANCE.md), so n = 2 / (2 - busbw/algbw). Read only from a factor between 1.05 and 2
    that every fast 'sum' row agrees on within 2% (reduce and broadcast print factor 1, reduce_scatter below 1), and
    only where it lands on a whole number; -1 otherwise. A bare table of 16 ranks at busbw 3.73 / algbw 1.99 (SkyPilot's
    CoreWeave guide, its run without InfiniBand) is a job of more ranks than one node has GPUs."""
    if not factors or not all(1.05 <= f < 1.99 for f in factors) or max(factors) - min(factors) > 0.02 * max(factors):
        return -1
    factor = sum(factors) / len(factors)
    n = 2 / (2 - factor)
    return round(n) if abs(n - round(n)) <= 0.1 * n / 8 + 0.05 else -1


def _interleaved(rows: list[tuple[int, str, str]]) -> int:
    """Extra copies of one test writing into one output, read from its result rows: one process sweeps the sizes
    upward and prints each (size, type, redop) once, so two rows of the same size back to back, in a sweep of
    several sizes, are two processes at the same point (nccl-tests built without MPI=1, each process its own
    one-rank job). The copies seen are the most rows any one size has, less one. A sweep of one size (-b = -e)
    repeated by -N cycles prints equal rows by itself and is not read. Rows of size 0 are left out: with many ranks,
    all_gather and reduce_scatter round each small requested size down to 0 elements per rank, and one process prints
    a 0-byte row for each of them (a GKE A3 Mega all_gather: five 0 rows, then one row per size)."""
    rows = [row for row in rows if row[0] > 0]
    if len({size for size, _, _ in rows}) < 2 or not any(a == b for a, b in zip(rows, rows[1:])):
        return 0
    counts: dict[tuple[int, str, str], int] = {}
    for row in rows:
        counts[row] = counts.get(row, 0) + 1
    return max(counts.values()) - 1


def _spread(values: list[float]) -> float:
    """(max - min) / max of the summaries of one output: ~0 when several copies of one test each printed theirs."""
    top = max(values, default=0.0)
    return (top - min(values)) / top if len(values) > 1 and top > 0 else -1.0


def _wrong(value: float | None, counted: bool) -> int:
    """A result column's wrong elements: '#wrong' counts them; the older largest 'error' only says whether the column
    was out of bounds, counted as one."""
    if value is None:
        return 0
    return int(value) if counted else int(value >= OUT_OF_BOUNDS)


def _number(token: str) -> float | None:
    try:
        return float(token)
    except ValueError:
        return None
