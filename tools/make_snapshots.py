"""Write CUDA memory snapshots in torch's format (no GPU here): the dict torch.cuda.memory._snapshot() returns,
pickled the way torch.cuda.memory._dump_snapshot() does, for OOMs of known cause.

    PYTHONPATH=$PWD .venv/bin/python tools/make_snapshots.py [--out fixtures/snapshots]

A tiny caching-allocator model places each allocation in a cudaMalloc'd segment (20 MiB, or the request
rounded up to 2 MiB), splits segments into blocks and records every action in device_traces with the stack
frames a _record_memory_history(stacks="all") run would give (C++ allocator frames, then Python frames from
torch and the training script). Structure and field names follow the Snapshot/Segment/Block/TraceEntry types
documented in torch/cuda/memory.py (_snapshot). Which stacks mean what: doctor/memory/classify.py.
"""
from __future__ import annotations

import argparse
import gzip
import pickle
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MiB, GiB = 2**20, 2**30
TORCH = "/usr/local/lib/python3.10/dist-packages/torch"
CPP = [{"filename": "??", "line": 0, "name": "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(signed char, unsigned long, CUstream_st*)"},
       {"filename": "??", "line": 0, "name": "at::detail::empty_generic(c10::ArrayRef<long>, c10::Allocator*, c10::DispatchKeySet, c10::ScalarType, std::optional<c10::MemoryFormat>)"}]


def py(path: str, line: int, name: str) -> dict[str, Any]:
    return {"filename": path, "line": line, "name": name}


STACKS: dict[str, list[dict[str, Any]]] = {
    "parameters": CPP + [py(f"{TORCH}/nn/modules/module.py", 1326, "convert"), py(f"{TORCH}/nn/modules/module.py", 942, "_apply"),
                         py(f"{TORCH}/nn/modules/module.py", 1340, "to"), py("/workspace/train.py", 41, "main")],
    "gradients": CPP + [{"filename": "??", "line": 0, "name": "torch::autograd::AccumulateGrad::apply(std::vector<at::Tensor, std::allocator<at::Tensor> >&&)"},
                        {"filename": "??", "line": 0, "name": "torch::autograd::Engine::evaluate_function(std::shared_ptr<torch::autograd::GraphTask>&, torch::autograd::Node*, torch::autograd::InputBuffer&, std::shared_ptr<torch::autograd::ReadyQueue> const&)"},
                        py(f"{TORCH}/autograd/graph.py", 825, "_engine_run_backward"), py(f"{TORCH}/autograd/__init__.py", 347, "backward"),
                        py(f"{TORCH}/_tensor.py", 626, "backward"), py("/workspace/train.py", 63, "train_step")],
    "optimizer": CPP + [py(f"{TORCH}/optim/adam.py", 157, "_init_group"), py(f"{TORCH}/optim/adam.py", 231, "step"),
                        py(f"{TORCH}/optim/optimizer.py", 487, "wrapper"), py("/workspace/train.py", 66, "train_step")],
    "activations": CPP + [py(f"{TORCH}/nn/modules/linear.py", 125, "forward"), py(f"{TORCH}/nn/modules/module.py", 1747, "_call_impl"),
                          py("/workspace/model.py", 88, "forward"), py(f"{TORCH}/nn/modules/module.py", 1747, "_call_impl"),
                          py("/workspace/train.py", 60, "train_step")],
    "attention": CPP + [py(f"{TORCH}/nn/functional.py", 5890, "scaled_dot_product_attention"), py("/workspace/model.py", 52, "forward"),
                        py(f"{TORCH}/nn/modules/module.py", 1747, "_call_impl"), py("/workspace/train.py", 60, "train_step")],
    "backward": CPP + [{"filename": "??", "line": 0, "name": "torch::autograd::Engine::evaluate_function(std::shared_ptr<torch::autograd::GraphTask>&, torch::autograd::Node*, torch::autograd::InputBuffer&, std::shared_ptr<torch::autograd::ReadyQueue> const&)"},
                       py(f"{TORCH}/autograd/graph.py", 825, "_engine_run_backward"), py(f"{TORCH}/autograd/__init__.py", 347, "backward"),
                       py("/workspace/train.py", 63, "train_step")],
    "checkpoint": CPP + [py(f"{TORCH}/serialization.py", 1840, "restore_location"), py(f"{TORCH}/serialization.py", 1868, "persistent_load"),
                         py(f"{TORCH}/serialization.py", 1899, "_load"), py(f"{TORCH}/serialization.py", 1471, "load"),
                         py("/workspace/train.py", 30, "resume")],
}


@dataclass
class Block:
    address: int
    size: int
    requested: int
    frames: list[dict[str, Any]]
    active: bool = True


@dataclass
class Allocator:
    """Segments of the caching allocator, first-fit into inactive blocks, new segment otherwise."""

    capacity: int
    record_frames: bool = True
    expandable: bool = False
    segments: list[list[Block]] = field(default_factory=list)
    trace: list[dict[str, Any]] = field(default_factory=list)
    next_address: int = 0x7F0000000000

    def reserved(self) -> int:
        return sum(b.size for seg in self.segments for b in seg)

    def alloc(self, size: int, stack: str) -> Block | None:
        size = -(-size // 512) * 512
        frames = STACKS[stack] if self.record_frames else []
        for seg in self.segments:
            for i, b in enumerate(seg):
                if not b.active and b.size >= size:
                    return self._split(seg, i, size, frames)
        seg_size = 20 * MiB if size <= 10 * MiB else -(-size // (2 * MiB)) * 2 * MiB
        if self.reserved() + seg_size > self.capacity:
            self._release_cached()                        # what the allocator does before giving up
        if self.reserved() + seg_size > self.capacity:
            self.trace.append({"action": "oom", "size": size, "stream": 0, "device_free": self.capacity - self.reserved(),
                               "frames": frames})
            return None
        self.trace.append({"action": "segment_alloc", "addr": self.next_address, "size": seg_size, "stream": 0,
                           "frames": frames})
        seg = [Block(self.next_address, seg_size, 0, frames, active=False)]
        self.next_address += seg_size + 64 * MiB
        self.segments.append(seg)
        return self._split(seg, 0, size, frames)

    def _split(self, seg: list[Block], i: int, size: int, frames: list[dict[str, Any]]) -> Block:
        free = seg[i]
        block = Block(free.address, size, size, frames)
        rest = free.size - size
        seg[i:i + 1] = [block] + ([Block(free.address + size, rest, 0, [], active=False)] if rest else [])
        self.trace.append({"action": "alloc", "addr": block.address, "size": size, "stream": 0, "frames": frames})
        return block

    def free(self, block: Block) -> None:
        for action in ("free_requested", "free_completed"):
            self.trace.append({"action": action, "addr": block.address, "size": block.size, "stream": 0,
                               "frames": block.frames})
        block.active = False
        for seg in self.segments:                         # merge with free neighbours, as the allocator does
            if block in seg:
                i = seg.index(block)
                if i + 1 < len(seg) and not seg[i + 1].active:
                    block.size += seg.pop(i + 1).size
                if i > 0 and not seg[i - 1].active:
                    seg[i - 1].size += seg.pop(i).size
                return

    def _release_cached(self) -> None:
        for seg in [s for s in self.segments if len(s) == 1 and not s[0].active]:
            self.trace.append({"action": "segment_free", "addr": seg[0].address, "size": seg[0].size, "stream": 0,
                               "frames": []})
            self.segments.remove(seg)

    def snapshot(self) -> dict[str, Any]:
        segments = []
        for seg in self.segments:
            allocated = sum(b.size for b in seg if b.active)
            segments.append({"device": 0, "address": seg[0].address, "total_size": sum(b.size for b in seg),
                             "stream": 0, "segment_type": "large" if seg[0].size > MiB else "small",
                             "segment_pool_id": (0, 0), "allocated_size": allocated, "active_size": allocated,
                             "requested_size": sum(b.requested for b in seg if b.active), "is_expandable": self.expandable,
                             "frames": seg[0].frames,
                             "blocks": [{"address": b.address, "size": b.size, "requested_size": b.requested,
                                         "state": "active_allocated" if b.active else "inactive", "frames": b.frames}
                                        for b in seg]})
        return {"segments": segments, "device_traces": [self.trace if self.record_frames else []],
                "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True" if self.expandable else "",
                                       "max_split_size": -1, "garbage_collection_threshold": 0.0,
                                       "expandable_segments": self.expandable, "release_lock_on_malloc": False},
                "external_annotations": []}


def layers(a: Allocator, stack: str, total: int, count: int) -> list[Block]:
    return [b for b in (a.alloc(total // count, stack) for _ in range(count)) if b]


def model_states() -> Allocator:
    """A 6B-parameter model with fp32 Adam on one 80 GB GPU: the optimizer's first step does not fit."""
    a = Allocator(capacity=80 * GiB)
    layers(a, "parameters", 12 * GiB, 48)
    acts = layers(a, "activations", 14 * GiB, 96)
    for b in acts:
        a.free(b)
    layers(a, "gradients", 12 * GiB, 48)
    layers(a, "optimizer", 72 * GiB, 144)                # fp32 master weights, exp_avg, exp_avg_sq
    return a


def activations() -> Allocator:
    """A 1.5B-parameter model at sequence length 32k: the forward pass does not fit."""
    a = Allocator(capacity=80 * GiB)
    layers(a, "parameters", 3 * GiB, 24)
    for _ in range(40):
        layers(a, "activations", 1536 * MiB, 2)
        layers(a, "attention", 512 * MiB, 1)
    layers(a, "attention", 4 * GiB, 1)
    return a


def fragmentation() -> Allocator:
    """Buffers carved out of cached 2 GiB blocks, then every other one freed: the cache holds 29 GiB in 256 MiB
    holes between live tensors, and a 2 GiB request fits in none of them."""
    a = Allocator(capacity=79 * GiB)
    layers(a, "parameters", 10 * GiB, 40)
    layers(a, "gradients", 10 * GiB, 40)
    pieces: list[Block] = []
    while a.reserved() + 2 * GiB <= 78 * GiB:
        for b in layers(a, "backward", 2 * GiB, 1):       # a large temporary, cached when freed
            a.free(b)
        pieces += layers(a, "activations", 2 * GiB, 8)    # carved out of that cached block
    for b in pieces[1::2]:
        a.free(b)
    layers(a, "attention", 2 * GiB, 1)
    return a


def checkpoint() -> Allocator:
    """Resuming: torch.load without map_location puts the saved model and optimizer state on the GPU too."""
    a = Allocator(capacity=80 * GiB)
    layers(a, "parameters", 14 * GiB, 56)
    layers(a, "checkpoint", 14 * GiB, 56)
    layers(a, "checkpoint", 28 * GiB, 112)
    layers(a, "optimizer", 28 * GiB, 112)
    return a


def healthy() -> Allocator:
    """A step that fits: the snapshot taken at the end of training, no out-of-memory."""
    a = Allocator(capacity=80 * GiB)
    layers(a, "parameters", 6 * GiB, 24)
    for b in layers(a, "activations", 20 * GiB, 40):
        a.free(b)
    layers(a, "gradients", 6 * GiB, 24)
    layers(a, "optimizer", 12 * GiB, 48)
    return a


def no_history() -> Allocator:
    """torch.cuda.memory._snapshot() without _record_memory_history: blocks carry no frames, no trace."""
    a = fragmentation()
    a.record_frames = False
    for seg in a.segments:
        for b in seg:
            b.frames = []
    return a


SCENARIOS = {"oom_model_states": model_states, "oom_activations": activations, "oom_fragmentation": fragmentation,
             "oom_checkpoint_on_gpu": checkpoint, "healthy_no_oom": healthy, "no_history": no_history}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="fixtures/snapshots")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, build in SCENARIOS.items():
        data = pickle.dumps(build().snapshot(), protocol=4)
        target = out / f"{name}.pickle"
        if name == "oom_activations":                     # one gzipped, as people upload them
            target = out / f"{name}.pickle.gz"
            data = gzip.compress(data, mtime=0)
        target.write_bytes(data)
        print(f"wrote {target} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
