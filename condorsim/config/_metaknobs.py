"""The ``use CATEGORY : NAME`` configuration templates (metaknobs) condorsim knows.

How this works
--------------
HTCondor keeps its templates in param_info.in (``[$ROLE.Personal]`` ...).
condorsim carries the few that make sense for a simulated pool, with the same
statements: the four roles, the no-preemption policy and the default security model
(``security : recommended_v9_0``, which the knob table's defaults already are).  A ``use`` line naming
anything else is refused with an error that lists what is supported, rather than
silently ignored.  Templates that take arguments are not supported.
"""

from __future__ import annotations

__all__ = ["METAKNOBS", "metaknob_body", "supported_metaknobs"]

METAKNOBS: dict[str, dict[str, str]] = {
    "ROLE": {
        "PERSONAL": (
            "CONDOR_HOST=127.0.0.1\n"
            "COLLECTOR_HOST=$(CONDOR_HOST):0\n"
            "DAEMON_LIST=MASTER COLLECTOR NEGOTIATOR STARTD SCHEDD\n"
            "RunBenchmarks=0\n"
        ),
        "EXECUTE": "DAEMON_LIST=$(DAEMON_LIST) STARTD\n",
        "SUBMIT": "DAEMON_LIST=$(DAEMON_LIST) SCHEDD\n",
        "CENTRALMANAGER": "DAEMON_LIST=$(DAEMON_LIST) COLLECTOR NEGOTIATOR\n",
    },
    "POLICY": {
        "ALWAYS_RUN_JOBS": (
            "WANT_SUSPEND=False\n"
            "WANT_VACATE=True\n"
            "SUSPEND=False\n"
            "CONTINUE=True\n"
            "PREEMPT=False\n"
            "START=True\n"
            "KILL=False\n"
            "PREEMPTION_REQUIREMENTS=False\n"
            "NEGOTIATOR_CONSIDER_PREEMPTION=False\n"
            "MaxJobRetirementTime=2147483647\n"
            "CLAIM_WORKLIFE=1200\n"
        ),
    },
    "SECURITY": {
        "RECOMMENDED_V9_0": (
            "SEC_DEFAULT_AUTHENTICATION=REQUIRED\n"
            "SEC_READ_AUTHENTICATION=OPTIONAL\n"
            "ALLOW_ADMINISTRATOR=condor@* condor_pool@* root@*\n"
            "ALLOW_DAEMON=condor@* condor_pool@*\n"
            "ALLOW_NEGOTIATOR=condor@* condor_pool@*\n"
            "ALLOW_WRITE=*\n"
            "ALLOW_READ=*\n"
        ),
    },
}

_SPELLING = {
    "RECOMMENDED_V9_0": "recommended_v9_0",
    "PERSONAL": "Personal",
    "EXECUTE": "Execute",
    "SUBMIT": "Submit",
    "CENTRALMANAGER": "CentralManager",
    "ALWAYS_RUN_JOBS": "ALWAYS_RUN_JOBS",
}


def metaknob_body(category: str, name: str) -> str | None:
    """The statements of ``use category : name``, or None when condorsim lacks it."""
    return METAKNOBS.get(category.upper(), {}).get(name.upper())


def supported_metaknobs() -> str:
    """A readable list such as ``ROLE : Personal, Execute, ...; POLICY : ALWAYS_RUN_JOBS``."""
    return "; ".join(
        f"{cat} : {', '.join(_SPELLING.get(n, n) for n in names)}" for cat, names in METAKNOBS.items()
    )
