"""Another program listening on the job's MASTER_PORT: a TCP service that greets every client with its banner.

    python -m lab.other_service PORT [SECONDS]

It stands for whatever took the port first: a VNC server ("RFB 003.008"), a metrics exporter, another tool's
listener. It is not a TCPStore, so a torch client that connects to it gets an answer it did not ask for. It exits by
itself after SECONDS (default 12), so a scenario ends without waiting for its deadline.
"""
from __future__ import annotations

import socket
import sys
import threading
import time

BANNER = b"RFB 003.008\n"


def answer(conn: socket.socket) -> None:
    """Reply with the banner to every message, as a line-protocol service does, until the client goes."""
    with conn:
        try:
            while conn.recv(4096):
                conn.sendall(BANNER)
        except OSError:
            pass


def serve(port: int, seconds: float) -> None:
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("0.0.0.0", port))
    listener.listen(16)
    listener.settimeout(0.5)
    print(f"other service listening on port {port}", flush=True)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            conn, _ = listener.accept()
        except socket.timeout:
            continue
        threading.Thread(target=answer, args=(conn,), daemon=True).start()
    listener.close()


def main(argv: list[str]) -> int:
    if not argv or not argv[0].isdigit():
        print("usage: python -m lab.other_service PORT [SECONDS]", file=sys.stderr)
        return 2
    serve(int(argv[0]), float(argv[1]) if len(argv) > 1 else 12.0)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
