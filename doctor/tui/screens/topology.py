"""The GPU topology of each node as a coloured grid, with the legend and a one-line summary."""
from __future__ import annotations

from collections import defaultdict

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Footer, Header, Static

from doctor.facts.topo import TopoLink, TopoNic
from doctor.tui.screens.view import ViewScreen
from doctor.tui.widgets.header import ICON
from doctor.tui.widgets.topology_grid import TopologyGrid, legend, nearest_nics, summary

NO_TOPOLOGY = ("no topo.link facts: add the output of `nvidia-smi topo -m` from each node "
               "(or run doctor tui on the node itself)")


def by_node(facts: list, kind: type) -> dict[str, list]:
    out: dict[str, list] = defaultdict(list)
    for f in facts:
        if isinstance(f, kind):
            out[f.node or "this node"].append(f)
    return dict(sorted(out.items()))


class TopologyScreen(ViewScreen):
    SUB_TITLE = "GPU topology"

    def compose(self) -> ComposeResult:
        yield Header(icon=ICON)
        links, nics = by_node(self.report.facts, TopoLink), by_node(self.report.facts, TopoNic)
        with VerticalScroll(id="view-body"):
            if not links:
                yield Static(NO_TOPOLOGY, classes="empty")
            for node, pairs in links.items():
                box = Vertical(classes="topo-node")
                box.border_title = node
                with box:
                    yield Static(summary(pairs), classes="topo-summary")
                    with Horizontal(classes="topo-row"):
                        yield TopologyGrid(pairs, nics.get(node, []))
                        yield Static(legend(pairs + nics.get(node, [])), classes="topo-legend")
                    if nics.get(node):
                        yield Static(f"nearest NIC: {nearest_nics(nics[node])}", classes="topo-nics")
                    yield Static(f"from {pairs[0].origin.source}", classes="origin")
        yield Footer()
