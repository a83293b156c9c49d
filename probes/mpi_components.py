"""Open MPI plugins that cannot be loaded for an undefined symbol: components of another Open MPI build.

Open MPI loads each component (mca_<framework>_<component>.so) from its install tree at startup. A plugin left by
another release in the same tree (a new release installed over an old one, or two installs on one path) was linked
against symbols the libraries now loaded no longer export, and the loader says so. Open MPI's FAQ ("What is
mca_pml_teg.so? Why am I getting warnings about not finding the mca_ptl_base_modules_initialized symbol from it?")
and its developers (devel list 2012/11872) name that cause.

Sample input (devel 2012/11872, mail-wrapped; the FAQ's unwrapped wording; users 2013/23189 through the loader):
    /usr/local/lib/openmpi/mca_ess_slurmd.so: undefined symbol:
    mca_pml_teg.so:undefined symbol:mca_ptl_base_modules_initialized
    hello: symbol lookup error: /usr/local/lib/openmpi/mca_pml_ob1.so: undefined symbol: progress_one_cuda_htod_event
"""
from __future__ import annotations

from doctor.facts.launchers import MpiComponentUnloadable
from doctor.probing.contract import LineProbe
from doctor.probing.regex import lazy_compile

_UNLOADABLE = lazy_compile(r"\b(?P<component>mca_[a-z0-9]+_\w+)\.so:\s*undefined symbol:?\s*(?P<symbol>\w*)")


class MpiComponents(LineProbe):
    name = "mpi_components"
    yields = ("mpi.component_unloadable",)
    triggers = ("undefined symbol",)

    def feed(self, line_no: int, line: str) -> None:
        if "mca_" in line and (m := _UNLOADABLE.search(line)):
            self.ctx.emit(MpiComponentUnloadable, line_no, line, component=m["component"], symbol=m["symbol"])
