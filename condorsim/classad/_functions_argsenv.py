"""Built-in ClassAd functions on argument and environment strings (HTCondor's
``compat_classad.cpp``): ``argsToList``, ``listToArgs``, ``envV1ToV2``, ``mergeEnvironment``.

How this works
--------------
They read and write the same syntaxes as condor_submit's ``arguments`` and ``environment``
commands (``ArgList`` / ``Env``), so they use submit's implementation of them
(``condorsim.submit._argsenv``), imported when first called. Without the surrounding double
quotes: the *raw* V2 syntax (white space separates words, single quotes group them, ``''``
is a quote) and the raw V1 one (white space separates arguments; environment entries are
separated by ``;`` or by the first character of the text when it is one of
``!#$%&*+,-/:;<>?@^`|~``). Environments are written sorted by name.

* ``argsToList(s [, version])``: the words of ``s`` (version 2, the default, or 1) as a
  list of strings; ERROR for a non-string, a version other than the integers 1 and 2, or
  text the syntax refuses (an unbalanced quote).
* ``listToArgs(list [, version])``: the arguments text of a list of strings; ERROR for an
  element that is not a string, or (version 1) one holding white space.
* ``envV1ToV2(s)``: V1 environment text as V2; UNDEFINED stays UNDEFINED.
* ``mergeEnvironment(e1, e2, ...)``: V2 environments merged left to right (a later value
  of a name wins); UNDEFINED arguments are skipped; anything but a string is ERROR.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from ._values import ERROR, UNDEFINED, EvalContext, Value


def _version(args: tuple[Value, ...]) -> int | None:
    """The optional version argument (an integer, not a bool or a real), or None if bad."""
    if len(args) < 2:
        return 2
    version = args[1]
    if type(version) is not int or version not in (1, 2):
        return None
    return version


def args_to_list(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    from condorsim.submit._argsenv import ArgsError, split_v1_raw, split_v2_raw

    if len(args) not in (1, 2):
        return ERROR
    version = _version(args)
    text = args[0]
    if version is None or type(text) is not str:
        return ERROR
    try:
        return split_v2_raw(text) if version == 2 else split_v1_raw(text)
    except ArgsError:
        return ERROR


def list_to_args(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    from condorsim.submit._argsenv import ArgsError, v1_arguments, v2_join

    if len(args) not in (1, 2):
        return ERROR
    version = _version(args)
    words = args[0]
    if version is None or type(words) is not list or any(type(w) is not str for w in words):
        return ERROR
    try:
        return v2_join(words) if version == 2 else v1_arguments(words)
    except ArgsError:
        return ERROR


def env_v1_to_v2(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    from condorsim.submit._argsenv import ArgsError, Env

    if len(args) != 1:
        return ERROR
    if args[0] is UNDEFINED:
        return UNDEFINED
    if type(args[0]) is not str:
        return ERROR
    env = Env()
    try:
        env.merge_v1(args[0])
    except ArgsError:
        return ERROR
    return env.v2()


def merge_environment(ctx: EvalContext, args: tuple[Value, ...]) -> Value:
    from condorsim.submit._argsenv import ArgsError, Env

    env = Env()
    for arg in args:
        if arg is UNDEFINED:
            continue
        if type(arg) is not str:
            return ERROR
        try:
            env.merge_v2_raw(arg)
        except ArgsError:
            return ERROR
    return env.v2()


ARGSENV_FUNCTIONS: Final[dict[str, Callable[[EvalContext, tuple[Value, ...]], Value]]] = {
    "argstolist": args_to_list,
    "listtoargs": list_to_args,
    "envv1tov2": env_v1_to_v2,
    "mergeenvironment": merge_environment,
}
