"""The process environment as `NAME=value` lines, secrets redacted, for bundles and scans alike.
The env_vars line probe reads the variables that steer training (NCCL_*, MASTER_*, ...) from it.

Redacted: names containing TOKEN, SECRET, PASSWORD, PASSWD, KEY, CREDENTIAL, AUTH or COOKIE, every AWS_*,
HF_TOKEN and WANDB_API_KEY; credentials inside URLs; values shaped like well-known tokens, wherever they are.
"""
from __future__ import annotations

import os
import re
from doctor.probing.regex import lazy_compile

REDACTED = "<redacted>"
SECRET_NAME = lazy_compile(r"TOKEN|SECRET|PASSW(?:OR)?D|KEY|CREDENTIAL|AUTH|COOKIE|^AWS_|^HF_TOKEN$|^WANDB_API_KEY$", re.I)
_URL_CREDENTIALS = lazy_compile(r"(?P<scheme>[A-Za-z][\w+.-]*://)[^\s/:@]+:[^\s/@]+@")
_TOKEN_SHAPES = lazy_compile(r"\b(?:hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|AKIA[0-9A-Z]{16}|"
                           r"ASIA[0-9A-Z]{16}|sk-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|glpat-[\w-]{20,})\b")


def secret_name(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def redact_text(text: str) -> str:
    """Credentials in URLs and token-shaped words, anywhere in a text."""
    return _TOKEN_SHAPES.sub(REDACTED, _URL_CREDENTIALS.sub(lambda m: m["scheme"] + REDACTED + "@", text))


def environment_text(environ: dict[str, str]) -> str:
    lines = ["# doctor environment (secrets redacted)"]
    for name in sorted(environ):
        value = REDACTED if secret_name(name) else redact_text(environ[name])
        lines.append(f"{name}={value.replace(chr(10), chr(92) + 'n')}")
    return "\n".join(lines) + "\n"


def read_live(_args: list[str]) -> str:
    return environment_text(dict(os.environ))
