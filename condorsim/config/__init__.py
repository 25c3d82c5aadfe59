"""HTCondor's configuration language and condorsim's knob defaults table.

How this works
--------------
:class:`Config` reads configuration files written in HTCondor's syntax
(``NAME = value``, ``$(NAME)`` expansion, ``@=`` multi-line values, ``SUBSYS.NAME``
prefixes, ``include``, ``LOCAL_CONFIG_FILE``, ``if``/``else``, ``_CONDOR_``
environment variables) and answers knob lookups, typed as HTCondor's ``param_*``
functions read them.  :data:`KNOBS` is the table of every knob condorsim honours,
with HTCondor's default, type and meaning (``config/knobs.toml``).  See
docs/config.md for what is supported and where condorsim differs from HTCondor.

Example::

    cfg = Config.load("pool.conf", subsystem="SCHEDD")
    interval = cfg.get_int("SCHEDD_INTERVAL")
"""

from __future__ import annotations

from ._config import Config, find_config_file
from ._errors import ConfigError, Origin
from ._knobs import KNOBS, KnobInfo, find_knob
from ._locals import split_list

__all__ = [
    "KNOBS",
    "Config",
    "ConfigError",
    "KnobInfo",
    "Origin",
    "find_config_file",
    "find_knob",
    "split_list",
]
