"""doctor collect's redaction (issue 15, hostile input 5): secrets by variable name and by value shape, on a table of
real secret formats (the values are made up, their shapes are the real ones), and end to end through a bundle."""
from __future__ import annotations

import tarfile
from pathlib import Path

import pytest
from hostile_run import run_capped

from probes.environment import environment_text, redact_text

GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
SECRETS = [   # (variable, value, the secret part that must not survive)
    ("http_proxy", "http://svc:p4ss/w0rd@proxy.corp:3128", "p4ss/w0rd"),
    ("HTTPS_PROXY", "http://svc:p@ssw0rd@proxy.corp:3128", "ssw0rd"),
    ("MASTER_ADDR", "admin:hunter2@10.0.0.1", "hunter2"),
    ("DB_PASS", "Tr0ub4dor", "Tr0ub4dor"),
    ("SMTP_PWD", "c0rrecthorse", "c0rrecthorse"),
    ("SENTRY_DSN", "https://9f0c1d2e3a4b5c6d7e8f9a0b1c2d3e4f@o123456.ingest.sentry.io/7654321", "9f0c1d2e3a4b5c6d7e8f"),
    ("APP_STORAGE", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=bXlrZXlteWtleW15a2V5+/mykey==;"
                    "EndpointSuffix=core.windows.net", "bXlrZXlteWtleW15a2V5"),
    ("NOTIFY_URL", "https://hooks.slack.com/services/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", "a1B2c3D4e5F6"),
    ("BILLING", "sk_live_51HxYzAbCdEfGhIjKlMnOpQrSt", "51HxYzAbCdEfGh"),
    ("CI_NOTE", GHP + "_suffix", GHP[4:]),
]


@pytest.mark.parametrize(("name", "value", "secret"), SECRETS, ids=[s[0] for s in SECRETS])
def test_environment_redacts_real_secret_formats(name: str, value: str, secret: str) -> None:
    text = environment_text({name: value, "NCCL_IB_HCA": "mlx5_0:1", "PWD": "/home/me/job"})
    assert secret not in text, text
    assert "NCCL_IB_HCA=mlx5_0:1" in text and "PWD=/home/me/job" in text     # what is not a secret stays


@pytest.mark.parametrize("plain", ["node1:123:456 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
                                   "MASTER_ADDR=10.0.0.1", "http://proxy.corp:3128", "user@example.com",
                                   "pip install git+https://github.com/org/repo"])
def test_what_is_not_a_secret_is_kept(plain: str) -> None:
    assert redact_text(plain) == plain


def test_collect_bundle_holds_no_secret(tmp_path: Path) -> None:
    env = {name: value for name, value, _ in SECRETS}
    out = tmp_path / "b.tar.gz"
    done = run_capped("collect", "--only", "environment,reachability", "--timeout", "2", "-o", str(out),
                      tmp=tmp_path / "tmp", env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    with tarfile.open(out) as tar:
        text = "".join(tar.extractfile(m).read().decode() for m in tar.getmembers() if m.isfile())  # type: ignore[union-attr]
    assert "reachability" in text
    for name, _, secret in SECRETS:
        assert secret not in text, name


@pytest.mark.parametrize("hostile", ["http://" + "a" * 100_000, "http://" * 20_000, "a:b," * 25_000 + "/@",
                                     "x" * 100_000 + ":b@", "u:p@" * 25_000],
                         ids=["long-host", "schemes", "pairs-then-slash", "long-user", "many-userinfo"])
def test_redaction_is_linear_on_hostile_text(hostile: str) -> None:
    import time
    start = time.perf_counter()
    redact_text(hostile)
    assert time.perf_counter() - start < 3      # an unbounded scheme or userinfo run took minutes here
