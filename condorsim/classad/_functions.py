"""The table of strict built-in ClassAd functions, by lower-case name.

How this works
--------------
Function names are case-insensitive in ClassAds, so the evaluator looks a call up here
by its lower-cased name and calls the entry with the evaluation context and the
evaluated arguments. An entry never raises: wrong argument counts or types give what
HTCondor gives (usually ERROR). A name not in this table is not a function: HTCondor
evaluates such a call to ERROR.

The special forms that need their arguments unevaluated (``ifThenElse``, ``eval``,
``unparse``, ``unresolved``, ``debug``, ``evalInEachContext``, ``countMatches``) are the
evaluator's, not here. See docs/classad-values.md for what is left out and why.
"""

from __future__ import annotations

from typing import Final

from ._functions_argsenv import ARGSENV_FUNCTIONS
from ._functions_lists import LIST_FUNCTIONS
from ._functions_math import MATH_FUNCTIONS
from ._functions_misc import MISC_FUNCTIONS
from ._functions_regex import REGEX_FUNCTIONS
from ._functions_stringlists import STRING_LIST_FUNCTIONS
from ._functions_strings import STRING_FUNCTIONS
from ._functions_time import TIME_FUNCTIONS
from ._values import BuiltinFunction


def _assemble(*tables: dict[str, BuiltinFunction]) -> dict[str, BuiltinFunction]:
    merged: dict[str, BuiltinFunction] = {}
    for table in tables:
        for name, function in table.items():
            if name in merged or name != name.lower():
                raise AssertionError(f"built-in {name!r} is listed twice or not in lower case")
            merged[name] = function
    return merged


BUILTINS: Final[dict[str, BuiltinFunction]] = _assemble(
    MATH_FUNCTIONS,
    STRING_FUNCTIONS,
    LIST_FUNCTIONS,
    STRING_LIST_FUNCTIONS,
    REGEX_FUNCTIONS,
    TIME_FUNCTIONS,
    MISC_FUNCTIONS,
    ARGSENV_FUNCTIONS,
)
"""Every strict built-in function, keyed by lower-case name."""
