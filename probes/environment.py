"""The process environment as `NAME=value` lines, secrets redacted, for bundles and scans alike.
The env_vars line probe reads the variables that steer training (NCCL_*, MASTER_*, ...) from it.

Redacted: names containing TOKEN, SECRET, PASSWORD, PASSWD, KEY, CREDENTIAL, AUTH, COOKIE, DSN, WEBHOOK or
CONNECTION_STRING, ending in _PASS or _PWD, every AWS_*, HF_TOKEN and WANDB_API_KEY; and wherever they are:
credentials inside URLs (the password may hold '/' or '@') and before a host without a scheme (user:pass@host),
AccountKey=/sig= values, Slack webhook paths, values shaped like well-known tokens (ghp_, sk_live_, AKIA, ...).
"""
from __future__ import annotations

import os
import re
from doctor.probing.regex import lazy_compile

REDACTED = "<redacted>"
SECRET_NAME = lazy_compile(r"TOKEN|SECRET|PASSW(?:OR)?D|KEY|CREDENTIAL|AUTH|COOKIE|_PASS$|^PASS$|_PWD$|DSN|WEBHOOK|"
                           r"CONN(?:ECTION)?_?STR|^AWS_|^HF_TOKEN$|^WANDB_API_KEY$", re.I)
# Value shapes, wherever they are (a bundle's every output goes through redact_text). Each is linear: every run that
# may backtrack has a bound (an unbounded scheme or userinfo was quadratic: 220 s on 'http://' + 100,000 letters).
_URL_CREDENTIALS = lazy_compile(r"(?<![\w+.-])(?P<scheme>[A-Za-z][\w+.-]{0,30}://)[^\s]{0,256}@(?=[^\s@])")  # to the last @
_BARE_CREDENTIALS = lazy_compile(r"(?<![\w/:@.-])[\w.-]{1,64}:[^\s@/]{1,128}@(?=[\w.\[-])")                 # user:pass@host
_KEY_VALUES = lazy_compile(r"\b(?P<key>AccountKey|SharedAccessKey|SharedAccessSignature|sig|password|pwd)=[^;&\s]+",
                           re.I)
_SLACK_HOOK = lazy_compile(r"(?P<keep>https://hooks\.slack\.com/(?:services|workflows)/)[\w/-]+")
_TOKEN_SHAPES = lazy_compile(r"\b(?:hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|AKIA[0-9A-Z]{16}|"
                           r"ASIA[0-9A-Z]{16}|sk-[A-Za-z0-9_-]{20,}|[sr]k_(?:live|test)_[A-Za-z0-9]{10,}|"
                           r"xox[abprs]-[A-Za-z0-9-]{10,}|glpat-[\w-]{20,})(?![A-Za-z0-9])")


def secret_name(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def redact_text(text: str) -> str:
    """Credentials in URLs (with or without a scheme), key=value secrets, webhooks and token-shaped words."""
    text = _URL_CREDENTIALS.sub(lambda m: m["scheme"] + REDACTED + "@", text)
    text = _BARE_CREDENTIALS.sub(REDACTED + "@", text)
    text = _KEY_VALUES.sub(lambda m: m["key"] + "=" + REDACTED, text)
    text = _SLACK_HOOK.sub(lambda m: m["keep"] + REDACTED, text)
    return _TOKEN_SHAPES.sub(REDACTED, text)


def environment_text(environ: dict[str, str]) -> str:
    lines = ["# doctor environment (secrets redacted)"]
    for name in sorted(environ):
        value = REDACTED if secret_name(name) else redact_text(environ[name])
        lines.append(f"{name}={value.replace(chr(10), chr(92) + 'n')}")
    return "\n".join(lines) + "\n"


def read_live(_args: list[str]) -> str:
    return environment_text(dict(os.environ))
