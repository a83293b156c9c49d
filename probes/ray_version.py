"""Ray's own version check across the nodes of a Ray cluster: what differs between the cluster and this process.

Ray compares the versions a process runs with those the cluster was started with and, when they differ, raises
(or logs, in old releases) both lists. Sample input (ray-project/ray#1263, Ray 0.2; the wording is the same in 2.x):
    Exception: Version mismatch: The cluster was started with:
        Ray: 0.2.2
        Ray location: /home/ubuntu/ray/python/ray/__init__.py
        Python: 3.5.2
        Cloudpickle: 0.5.2
    This process on node 172.31.4.51 was started with:
        Ray: 0.2.2
        ...
        Cloudpickle: 0.2.2
One fact per component whose versions differ (the location is a path, not a version).
"""
from __future__ import annotations

from doctor.facts.env import RayVersionReport
from doctor.probing.contract import LineProbe, ParseContext
from doctor.probing.regex import lazy_compile

COMPONENTS = ("Ray", "Python", "Cloudpickle")
_CLUSTER = lazy_compile(r"The cluster was started with:\s*$")
_PROCESS = lazy_compile(r"This process on (?:node )?(?P<node>\S+) was started with:\s*$")
_VALUE = lazy_compile(r"^\s+(?P<name>" + "|".join(COMPONENTS) + r"):\s*(?P<value>\S+)\s*$")
WINDOW = 8                    # a block's lines follow its header within this many lines


class RayVersions(LineProbe):
    name = "ray_version"
    yields = ("ray.version_mismatch",)
    triggers = ("was started with:",) + tuple(f"{c}:" for c in COMPONENTS)

    def __init__(self, ctx: ParseContext) -> None:
        super().__init__(ctx)
        self.block, self.header_line, self.node = "", 0, ""
        self.values: dict[str, dict[str, tuple[int, str, str]]] = {"cluster": {}, "process": {}}

    def feed(self, line_no: int, line: str) -> None:
        if _CLUSTER.search(line):
            self._flush()
            self.block, self.header_line = "cluster", line_no
        elif (m := _PROCESS.search(line)):
            self.block, self.header_line, self.node = "process", line_no, m["node"]
        elif self.block and line_no - self.header_line <= WINDOW and (m := _VALUE.match(line)):
            self.values[self.block].setdefault(m["name"], (line_no, line, m["value"]))

    def finish(self) -> None:
        self._flush()

    def _flush(self) -> None:
        cluster, process = self.values["cluster"], self.values["process"]
        for name in COMPONENTS:
            if name in cluster and name in process and cluster[name][2] != process[name][2]:
                line_no, line, value = process[name]
                self.ctx.emit(RayVersionReport, line_no, line, node=self.ctx.node, component=name,
                              cluster=cluster[name][2], process=value, process_node=self.node)
        self.block, self.node, self.values = "", "", {"cluster": {}, "process": {}}
