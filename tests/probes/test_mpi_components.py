"""mpi_components: Open MPI plugins the loader cannot open for an undefined symbol (verbatim lines of the cases)."""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.mpi_components import MpiComponents

WRAPPED = "/usr/local/lib/openmpi/mca_ess_slurmd.so: undefined symbol:\n"                      # devel list 2012/11872
FAQ = "mca_pml_teg.so:undefined symbol:mca_ptl_base_modules_initialized\n"                     # Open MPI's FAQ
LOADER = ("hello: symbol lookup error: /usr/local/lib/openmpi/mca_pml_ob1.so: undefined symbol: "
          "progress_one_cuda_htod_event\n")                                                     # users list 2013/23189


def _read(text: str) -> list[tuple[str, str]]:
    return [(f.component, f.symbol) for f in parse_lines(MpiComponents, text, source="t.log", node="n")]


def test_each_wording_names_the_plugin_and_its_symbol() -> None:
    assert _read(WRAPPED) == [("mca_ess_slurmd", "")]
    assert _read(FAQ) == [("mca_pml_teg", "mca_ptl_base_modules_initialized")]
    assert _read(LOADER) == [("mca_pml_ob1", "progress_one_cuda_htod_event")]


def test_other_libraries_missing_a_symbol_are_not_open_mpi_plugins() -> None:
    text = ("ImportError: /opt/conda/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: "
            "ncclCommRegister\n"
            "mpirun.openmpi: symbol lookup error: mpirun.openmpi: undefined symbol: orte_ess_base_std_prolog\n"
            "/usr/lib/openmpi/lib/openmpi/mca_btl_openib.so: cannot open shared object file: No such file\n")
    assert _read(text) == []
