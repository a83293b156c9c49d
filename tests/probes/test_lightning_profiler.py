"""Lightning's SimpleProfiler report as users paste it: the train batch fetch's share of the profiled time.

The texts are verbatim: fixtures/cases/dataloader-lag-llama-51 (outer pipes dropped, 'Percentage %' column) and a
report without the 'Percentage %' column (SimpleProfiler(extended=False)), whose share is Total time / Total's.
"""
from __future__ import annotations

from doctor.probing.contract import parse_lines
from probes.lightning_profiler import LightningProfiler

LAG_LLAMA = """\
Action |  Mean duration (s) |  Num calls |  Total time (s) |  Percentage %
Total |  - |  1397 |  99.734 |  100 % 
run_training_epoch |  91.657                |  1                    |  91.657               |  91.901               |
[_TrainingEpochLoop].train_dataloader_next |  5.2931                |  16                   |  84.689               |  84.915               |
[_EvaluationLoop].val_next |  0.246                 |  19                   |  4.674                |  4.6865               |
"""
NOT_EXTENDED = """\
|  Action          \t|  Mean duration (s)\t|  Total time (s) \t|
|  Total           \t|  -              \t|  10.0           \t|
|  get_train_batch \t|  0.5            \t|  4.0            \t|
"""
# a row of the same name outside a report (no header read before it) is not a measurement
NO_HEADER = "[_TrainingEpochLoop].train_dataloader_next |  5.2931 |  16 |  84.689 |  84.915 |\n"


def test_the_fetch_row_of_a_pasted_report_gives_its_percentage() -> None:
    (row,) = parse_lines(LightningProfiler, LAG_LLAMA)
    assert (row.name, row.cpu_total_frac, row.calls, row.table) == (
        "[_TrainingEpochLoop].train_dataloader_next", 0.8492, 16, "lightning")
    assert row.origin.line == 4


def test_without_a_percentage_column_the_share_is_taken_from_the_total_row() -> None:
    (row,) = parse_lines(LightningProfiler, NOT_EXTENDED)
    assert (row.name, row.cpu_total_frac) == ("get_train_batch", 0.4)


def test_validation_rows_and_headerless_rows_are_not_read() -> None:
    assert not parse_lines(LightningProfiler, NO_HEADER)
    assert all(r.name.endswith("train_dataloader_next") for r in parse_lines(LightningProfiler, LAG_LLAMA))
