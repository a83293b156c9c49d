"""A tiny TensorFlow multi-worker job for the lab: MultiWorkerMirroredStrategy (collective all-reduce over gRPC) on CPU.

    TF_CONFIG='{"cluster": {"worker": ["h0:p", "h1:p"]}, "task": {"type": "worker", "index": I}}' \\
        python -m lab.tf_job [--steps 5] [--step-sleep 0.5] [--exit-at STEP]

Each step all-reduces a gradient-sized tensor across the workers, the way a custom training loop does, and prints a
step line. --exit-at makes this worker die (os._exit) at that step, as a worker killed by the OOM killer would.
TensorFlow is kept off the shared venv (LAB_TENSORFLOW_PATH, lab/README.md).
"""
from __future__ import annotations

import argparse
import json
import os
import time


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--step-sleep", type=float, default=0.5)
    ap.add_argument("--exit-at", type=int, default=-1)
    args = ap.parse_args()

    import tensorflow as tf

    index = json.loads(os.environ.get("TF_CONFIG", "{}")).get("task", {}).get("index", -1)
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    print(f"[worker {index}] replicas in sync: {strategy.num_replicas_in_sync}", flush=True)

    @tf.function
    def step():
        grad = strategy.run(lambda: tf.ones([1024]))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, grad, axis=None)

    for i in range(args.steps):
        if i == args.exit_at:
            print(f"[worker {index}] exiting at step {i}", flush=True)
            os._exit(1)
        total = step()
        print(f"[worker {index}] step {i}: all_reduce sum={float(total[0]):.1f}", flush=True)
        time.sleep(args.step_sleep)
    print(f"[worker {index}] done", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
