"""Credentials: the X.509 proxy, SciTokens and OAuth services (``SetGSICredentials``,
``SetOAuth``).

How this works
--------------
``x509userproxy`` names a proxy file (``use_x509userproxy = true`` alone takes the
submitter's ``X509_USER_PROXY`` or ``/tmp/x509up_u<uid>``). condor_submit reads it:
it must hold a PEM certificate followed by its private key (a certificate chain may
follow); otherwise the job is refused with "unable to read proxy file". The proxy
expires when the first of its certificates does: a proxy expired at submit time is
refused, as is one that expires within ``CRED_MIN_TIME_LEFT`` (120 s) of it. The job
gets ``x509userproxy`` (made absolute against Iwd). condorsim reads the certificates'
``notAfter`` with a small DER reader of its own (no crypto is needed for that).

``use_scitokens`` (true, false or auto) with ``scitokens_file`` or the submitter's
``BEARER_TOKEN_FILE`` gives ``ScitokensFile``; ``use_oauth_services`` lists the OAuth
services the job needs (``<service>_oauth_permissions_<handle>`` adds handles) in
``OAuthServicesNeeded``. condor_submit (not the bindings) then reads each service's
``_oauth_permissions``, ``_oauth_resource`` and ``_oauth_options`` to ask the credd for
the tokens; condorsim has no credd, so with ``checks`` it only reads them (they are
used, not typos).
"""

from __future__ import annotations

import base64
import binascii
import calendar
import os
import re

from ._commands import bool_command
from ._exprs import eval_bool
from ._job import Attrs, JobInput
from ._paths import join_path

_PEM = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \1-----", re.S)
_KEYS = ("PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", "DSA PRIVATE KEY")


class ProxyError(Exception):
    """A proxy file condor_submit cannot use; the text is its reason."""


def _der(data: bytes, pos: int) -> tuple[int, int, int]:
    """(tag, start of content, end of content) of the DER element at ``pos``."""
    if pos + 2 > len(data):
        raise ProxyError("unable to read proxy file")
    tag, length = data[pos], data[pos + 1]
    pos += 2
    if length & 0x80:
        count = length & 0x7F
        if count == 0 or count > 4 or pos + count > len(data):
            raise ProxyError("unable to read proxy file")
        length = int.from_bytes(data[pos : pos + count], "big")
        pos += count
    if pos + length > len(data):
        raise ProxyError("unable to read proxy file")
    return tag, pos, pos + length


def _children(data: bytes, start: int, end: int) -> list[tuple[int, int, int]]:
    out = []
    while start < end:
        tag, content, after = _der(data, start)
        out.append((tag, content, after))
        start = after
    return out


def _time(tag: int, text: str) -> int:
    match = re.fullmatch(r"(\d{2,4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z", text)
    if match is None or (tag == 0x17) != (len(match.group(1)) == 2):
        raise ProxyError("unable to read proxy file")
    year = int(match.group(1))
    if tag == 0x17:
        year += 1900 if year >= 50 else 2000
    fields = (year, *(int(match.group(i)) for i in range(2, 7)))
    return calendar.timegm((*fields, 0, 0, 0))


def not_after(der: bytes) -> int:
    """The ``notAfter`` time of a DER certificate, as a Unix time."""
    tag, start, end = _der(der, 0)
    if tag != 0x30:
        raise ProxyError("unable to read proxy file")
    parts = _children(der, start, end)
    if not parts or parts[0][0] != 0x30:
        raise ProxyError("unable to read proxy file")
    tbs = _children(der, parts[0][1], parts[0][2])
    if tbs and tbs[0][0] == 0xA0:
        tbs = tbs[1:]
    if len(tbs) < 4 or tbs[3][0] != 0x30:
        raise ProxyError("unable to read proxy file")
    validity = _children(der, tbs[3][1], tbs[3][2])
    if len(validity) != 2 or validity[1][0] not in (0x17, 0x18):
        raise ProxyError("unable to read proxy file")
    tag, start, end = validity[1]
    return _time(tag, der[start:end].decode("ascii", "replace"))


def proxy_expiration(path: str) -> int:
    """When the proxy in file ``path`` expires; raises ProxyError as condor_submit refuses it."""
    try:
        with open(path, "rb") as fh:
            text = fh.read().decode("ascii", "replace")
    except (OSError, ValueError):
        raise ProxyError("unable to read proxy file") from None
    blocks: list[tuple[str, bytes]] = []
    for match in _PEM.finditer(text):
        try:
            blocks.append((match.group(1), base64.b64decode("".join(match.group(2).split()))))
        except (binascii.Error, ValueError):
            raise ProxyError("unable to read proxy file") from None
    first = next((i for i, (kind, _) in enumerate(blocks) if kind == "CERTIFICATE"), None)
    if first is None:
        raise ProxyError("unable to read proxy file")
    key = next((i for i in range(first + 1, len(blocks)) if blocks[i][0] in _KEYS), None)
    if key is None:
        raise ProxyError("unable to read proxy file")
    certs = [blocks[first][1]] + [der for kind, der in blocks[key + 1 :] if kind == "CERTIFICATE"]
    return min(not_after(der) for der in certs)


def set_gsi_credentials(job: JobInput, ad: Attrs) -> None:
    proxy = job.param("x509userproxy")
    use = bool_command(job, "use_x509userproxy", None, False)
    if proxy is None and use:
        proxy = job.env.get("X509_USER_PROXY") or f"/tmp/x509up_u{os.getuid()}"
    if proxy is not None:
        full = join_path(job.iwd, proxy)
        try:
            expires = proxy_expiration(full)
        except ProxyError as exc:
            raise job.error(f"{exc}\n", "x509userproxy") from None
        if expires < job.qdate:
            raise job.error("proxy has expired\n", "x509userproxy")
        if expires < job.qdate + int(job.conf("CRED_MIN_TIME_LEFT", "120")):
            raise job.error("proxy lifetime too short\n", "x509userproxy")
        ad["x509userproxy"] = full
    lifetime = job.param("delegate_job_gsi_credentials_lifetime",
                         "DelegateJobGSICredentialsLifetime")  # fmt: skip
    if lifetime is not None:
        if not re.fullmatch(r"[ \t\n\r\v\f]*[+-]?\d+", lifetime):
            raise job.error("invalid integer setting delegate_job_gsi_credentials_lifetime = "
                            f"{lifetime}\n", "delegate_job_gsi_credentials_lifetime")  # fmt: skip
        ad["DelegateJobGSICredentialsLifetime"] = int(lifetime)
    _scitokens(job, ad)


def _scitokens(job: JobInput, ad: Attrs) -> None:
    use_text = job.param("use_scitokens", "use_scitoken")
    token_file = job.param("scitokens_file", "ScitokensFile")
    use = token_file is not None
    if use_text is not None:
        if use_text.lower() == "auto":
            use = token_file is not None or bool(job.env.get("BEARER_TOKEN_FILE"))
        else:
            flag = eval_bool(use_text)
            if flag is None:
                raise job.error("use_scitokens error. Value should be true, false, or auto.\n",
                                "use_scitokens")  # fmt: skip
            use = flag
    if not use:
        return
    token_file = token_file or job.env.get("BEARER_TOKEN_FILE")
    if not token_file:
        raise job.error("No Scitokens filename specified. Expected either scitokens_file command "
                        "or the BEARER_TOKEN_FILE environment variable to be set.\n",
                        "use_scitokens")  # fmt: skip
    ad["ScitokensFile"] = join_path(job.iwd, token_file)


_OAUTH_KEY = re.compile(r"_oauth_(permissions|resource|options)", re.I)


def set_oauth(job: JobInput, ad: Attrs) -> None:
    needed = job.param("use_oauth_services", "UseOAuthServices")
    if not needed:
        return
    enabled = {name.lower(): name for name in needed.replace(",", " ").split()}
    names: dict[str, str] = {}
    with_handles: set[str] = set()
    for lower, (key, _value) in sorted(job.table.user.items()):
        if lower.startswith("my.") or key.startswith("+"):
            continue
        match = _OAUTH_KEY.search(key, 1)
        if match is None:
            continue
        service = key[: match.start()]
        if service.lower() not in enabled:
            continue
        if match.end() < len(key):
            with_handles.add(service.lower())
            service = f"{service}*{key[match.end() + 1:]}"
        names.setdefault(service.lower(), service)
    for lower, name in enabled.items():
        if lower not in with_handles:
            names.setdefault(lower, name)
    ad["OAuthServicesNeeded"] = ",".join(names[k] for k in sorted(names))
    if job.checks:
        for name in names.values():
            service, _, handle = name.partition("*")
            for kind in ("PERMISSIONS", "RESOURCE", "OPTIONS"):
                job.param(f"{service}_OAUTH_{kind}" + (f"_{handle}" if handle else ""))
