"""What the program was doing when it failed: notable calls in Python tracebacks.

Sample input:
      File "train.py", line 98, in main
        torch.cuda.set_device(args.local_rank)
      File "train.py", line 120, in main
        checkpoint = torch.load(ckpt_path, map_location=device)
"""
from __future__ import annotations

from doctor.facts.gpu import TraceFrame
from doctor.facts.launch import PROCESS_GROUP_SETUP
from doctor.probing.contract import LineProbe
from doctor.probing.lines import who
from doctor.probing.regex import lazy_compile

ACTIVITIES: tuple[tuple[str, str], ...] = (
    ("torch.load(", "checkpoint_load"), ("load_state_dict(", "checkpoint_load"), ("in load_state_dict", "checkpoint_load"),
    ("in load_checkpoint", "checkpoint_load"), ("resume_from_checkpoint", "checkpoint_load"),
    ("initialize_optimizer_states(", "optimizer_state_init"), ("in initialize_optimizer_states", "optimizer_state_init"),
    ("_init_optim_state(", "optimizer_state_init"),
    ("set_device(", "set_device"), ("in set_device", "set_device"),
    ("init_process_group(", "init_process_group"), ("in init_process_group", "init_process_group"),
    (".backward(", "backward"), ("in backward", "backward"), ("optimizer.step(", "optimizer_step"),
    ("in step", "optimizer_step"), ("model.to(", "model_to_device"), (".cuda()", "model_to_device"),
)
# PyTorch's Adam/AdamW create exp_avg / exp_avg_sq lazily in their first step(): a frame of torch/optim/adam*.py
# (a standard `File "...", line N, in fn` or a rich `...adamw.py:566 in fn` frame) or a source line naming those
# states is the optimizer updating its moments. Only torch.optim's own files: a scheduler's or a trainer's `step`
# is not one.
ADAM_FUNCTIONS = ("step", "adam", "adamw", "_single_tensor_adam", "_single_tensor_adamw", "_multi_tensor_adam",
                  "_multi_tensor_adamw", "_fused_adam", "_fused_adamw", "_init_group")
_ADAM_FRAME = lazy_compile(r'torch[\\/]+optim[\\/]+adamw?\.py(?:", line \d+,|:\d+) in (?P<fn>\w+)')
_ADAM_STATE = lazy_compile(r"\bexp_avg(?:_sq)?\b|_exp_avg(?:_sq)?s\b")
_FRAME_LINE = lazy_compile(r'^File "[^"]*", line \d+, in (?P<fn>[\w<>.]+)\s*$')
# torch.load (also imported as th) called with no map_location: tensors go back to the device they were saved from
_LOAD_CALL = lazy_compile(r"\b(?:torch|th)\.load\(")


class TracebackFrames(LineProbe):
    name = "traceback_frames"
    yields = ("trace.frame",)
    triggers = (tuple(words for words, _ in ACTIVITIES) + ("th.load(", "exp_avg") + tuple(sorted(f"in {fn}" for fn in PROCESS_GROUP_SETUP))
                + ("optim/adam", "optim\\adam"))

    def feed(self, line_no: int, line: str) -> None:
        stripped = who(line, "").body.strip()   # a frame behind "[rank0]:", "host: " or Ray's "(Actor pid=N)" is a frame
        if stripped.startswith("#") or "def " in stripped:
            return
        if (m := _FRAME_LINE.match(stripped)) and m["fn"] in PROCESS_GROUP_SETUP:
            self.ctx.emit(TraceFrame, line_no, line, function=m["fn"], activity="process_group_setup")
            return
        if self._adam_moments(line_no, line, stripped):
            return
        if _LOAD_CALL.search(line) and "map_location" not in line:
            self.ctx.emit(TraceFrame, line_no, line, function="torch.load", activity="load_to_saved_device")
        for words, activity in ACTIVITIES:
            if words in line:
                self.ctx.emit(TraceFrame, line_no, line, function=words.strip("(.").replace("in ", ""), activity=activity)
                return

    def _adam_moments(self, line_no: int, line: str, stripped: str) -> bool:
        """A torch.optim Adam frame, or Adam's state names in a traceback's source line: activity optimizer_moments."""
        if (m := _ADAM_FRAME.search(stripped)) and m["fn"] in ADAM_FUNCTIONS:
            self.ctx.emit(TraceFrame, line_no, line, function=m["fn"], activity="optimizer_moments")
            return True
        if _ADAM_STATE.search(stripped) and not stripped.startswith("File "):
            self.ctx.emit(TraceFrame, line_no, line, function="adam_state", activity="optimizer_moments")
            return True
        return False
