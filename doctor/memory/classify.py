"""What an allocation was for, from the stack frames the allocator recorded with it.

Frames are innermost first, Python and C++ mixed ({"filename", "line", "name"}). The first category whose
sign appears anywhere in the stack wins, in this order: a checkpoint being loaded, optimizer state, a
gradient being accumulated, other backward-pass buffers (activation gradients: counted as activations),
parameters being created or moved, forward activations.
"""
from __future__ import annotations

from typing import Any, Callable

Frame = tuple[str, str]          # (filename, function name)

PARAMETERS, GRADIENTS, OPTIMIZER, ACTIVATIONS, CHECKPOINT, OTHER, UNKNOWN = (
    "parameters", "gradients", "optimizer", "activations", "checkpoint", "other", "unknown")
CATEGORIES = (PARAMETERS, GRADIENTS, OPTIMIZER, ACTIVATIONS, CHECKPOINT, OTHER, UNKNOWN)


def _checkpoint(f: Frame) -> bool:
    return "torch/serialization.py" in f[0] or f[1] in ("_cuda_deserialize", "restore_location")


def _optimizer(f: Frame) -> bool:
    return "torch/optim/" in f[0] or "zero_redundancy_optimizer" in f[0] or f[1].startswith("Optimizer.")


def _gradient(f: Frame) -> bool:
    return "AccumulateGrad" in f[1] or "accumulate_grad" in f[1].lower()


def _backward(f: Frame) -> bool:
    return ("torch/autograd/" in f[0] and "backward" in f[1]) or "autograd::Engine" in f[1] or "Backward" in f[1]


def _parameters(f: Frame) -> bool:
    return ((f[0].endswith("torch/nn/modules/module.py") and f[1] in ("_apply", "to", "cuda", "convert"))
            or "reset_parameters" in f[1] or f[0].endswith("torch/nn/parameter.py")
            or ("torch/nn/modules/" in f[0] and f[1] == "__init__") or f[1] == "to_empty")


def _forward(f: Frame) -> bool:
    return f[1] in ("forward", "_call_impl", "_wrapped_call_impl") or f[0].endswith("torch/nn/functional.py")


SIGNS: tuple[tuple[str, Callable[[Frame], bool]], ...] = (
    (CHECKPOINT, _checkpoint), (OPTIMIZER, _optimizer), (GRADIENTS, _gradient), (ACTIVATIONS, _backward),
    (PARAMETERS, _parameters), (ACTIVATIONS, _forward),
)


def frames_of(raw: Any, limit: int = 64) -> tuple[Frame, ...]:
    """(filename, name) pairs from a snapshot's frame list; anything malformed is skipped."""
    if not isinstance(raw, list):
        return ()
    out = []
    for frame in raw[:limit]:
        if isinstance(frame, dict):
            out.append((_text(frame.get("filename")), _text(frame.get("name"))))
    return tuple(out)


def _text(value: Any) -> str:
    """A frame field: a string, cut; anything else from the upload (a shared-reference tree prints exponentially) is ''."""
    return value[:500] if type(value) is str else ""


def classify(frames: tuple[Frame, ...]) -> str:
    if not frames:
        return UNKNOWN
    for category, sign in SIGNS:
        if any(sign(f) for f in frames):
            return category
    return OTHER


def user_frame(frames: tuple[Frame, ...]) -> str:
    """The innermost frame outside torch and C++ (the user's code), as 'file:function'; else the innermost."""
    for filename, name in frames:
        if filename.endswith(".py") and "/torch/" not in filename and "site-packages" not in filename:
            return f"{filename.rsplit('/', 1)[-1]}:{name}"
    return f"{frames[0][0].rsplit('/', 1)[-1]}:{frames[0][1]}" if frames else ""
