"""What a container or pod spec gives the job: /dev/infiniband, IPC_LOCK, hostIPC, shm volumes, RDMA resources.

Sample input:
    securityContext:
      capabilities:
        add: ["IPC_LOCK"]
    volumeMounts:
    - mountPath: /dev/infiniband
    docker run --device=/dev/infiniband --cap-add=IPC_LOCK --shm-size=1g ...
"""
from __future__ import annotations

from doctor.facts.env import ContainerDevice
from doctor.probing.contract import LineProbe

_SIGNS: tuple[tuple[str, str], ...] = (
    ("/dev/infiniband", "/dev/infiniband"), ("IPC_LOCK", "IPC_LOCK"), ("rdma/", "rdma_resource"),
    ("hostIPC: true", "host_ipc"), ("--ipc=host", "host_ipc"), ("--shm-size", "shm_size"),
    ("hostNetwork: true", "host_network"), ("--net=host", "host_network"), ("--network=host", "host_network"),
)


class ContainerSpec(LineProbe):
    name = "container_spec"
    yields = ("container.device",)
    triggers = tuple(words for words, _ in _SIGNS)

    def feed(self, line_no: int, line: str) -> None:
        for words, name in _SIGNS:
            if words in line:
                self.ctx.emit(ContainerDevice, line_no, line, name=name)
