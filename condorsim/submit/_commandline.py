"""The setters for what a job is run with: arguments, environment, Java VM arguments and
the tool daemon (``SetArguments``, ``SetEnvironment``, ``SetJavaVMArgs``, ``SetTDP``).

How this works
--------------
Each kind of argument list has a command for either syntax (``arguments``) and one for
the new syntax only (``arguments2``); giving both needs ``allow_arguments_v1 = true``,
and then the ``...2`` command wins. The words are parsed by ``_argsenv`` and written
as V1 text (``Args``, ``JavaVMArgs``, ``ToolDaemonArgs``) when the input was V1, else as
V2 text (``Arguments``, ``JavaVMArguments``, ``ToolDaemonArguments``). The environment
works the same way with ``environment``/``env`` and ``environment2`` (with
``allow_environment_v1``), plus ``getenv`` (``get_env``): true imports the submitter's
whole environment, a list of names (``*`` wildcards, ``!name`` to exclude) imports
those; the job's own variables win.
"""

from __future__ import annotations

from ._argsenv import ArgsError, Env, is_v2_quoted, parse_arguments, v1_arguments, v2_join
from ._commands import bool_command
from ._exprs import eval_bool
from ._job import JAVA, Attrs, JobInput


def _both_error(one: str, two: str) -> str:
    return (
        f"If you wish to specify both '{one}' and\n'{two}' for maximal compatibility with "
        "different\nversions of Condor, then you must also specify\nallow_arguments_v1=true.\n"
    )


def _words(
    job: JobInput, value: str | None, value2: str | None, first: str, second: str,
    allow_v1: bool,
) -> tuple[list[str], bool] | None:  # fmt: skip
    """The parsed words and whether they were V1 text; None when neither command is set."""
    if value2 is not None and value is not None and not allow_v1:
        raise job.error(_both_error(first, second), second)
    if value2 is not None:
        return parse_arguments(value2, v2_only=True)
    if value is not None:
        return parse_arguments(value)
    return None


def set_arguments(job: JobInput, ad: Attrs) -> None:
    value = job.param("arguments", "Args")
    value2 = job.param("arguments2")
    allow_v1 = bool_command(job, "allow_arguments_v1", None, False)
    try:
        parsed = _words(job, value, value2, "arguments", "arguments2", allow_v1)
    except ArgsError as exc:
        message = str(exc) or "ERROR in arguments."
        key = "arguments2" if value2 is not None else "arguments"
        raise job.error(
            f"{message}\nThe full arguments you specified were: {value2 or value}\n", key, "Args"
        ) from None
    if parsed is None and (job.lookup(ad, "Args") is not None or
                           job.lookup(ad, "Arguments") is not None):  # fmt: skip
        return
    words, v1 = parsed or ([], False)
    if v1:
        ad["Args"] = v1_arguments(words)
    else:
        ad["Arguments"] = v2_join(words)
    if job.universe == JAVA and not words:
        raise job.error(
            "In Java universe, you must specify the class name to run.\nExample:\n\n"
            "arguments = MyClass\n\n",
            "universe",
            "JobUniverse",
        )


def _extra_arguments(
    job: JobInput, ad: Attrs, prefix: str, attrs: tuple[str, str], both: str, failed: str
) -> None:
    """An argument list of its own (``<prefix>_arguments``, the older ``<prefix>_args`` and
    ``<prefix>_arguments2``) into ``attrs`` (V1 attribute, V2 attribute)."""
    old = job.param(f"{prefix}_args")
    key, key2 = f"{prefix}_arguments", f"{prefix}_arguments2"
    value = job.param(key, attrs[0])
    value2 = job.param(key2)
    allow_v1 = bool_command(job, "allow_arguments_v1", None, False)
    if value is not None and old is not None:
        raise job.error(both, key)
    value = value if value is not None else old
    try:
        parsed = _words(job, value, value2, key, key2, allow_v1)
    except ArgsError as exc:
        raise job.error(failed.format(exc, value2 or value), key) from None
    if parsed is None:
        return
    words, v1 = parsed
    text = v1_arguments(words) if v1 else v2_join(words)
    if text:
        ad[attrs[0] if v1 else attrs[1]] = text


def set_java_vm_args(job: JobInput, ad: Attrs) -> None:
    _extra_arguments(
        job, ad, "java_vm", ("JavaVMArgs", "JavaVMArguments"),
        "you specified a value for both java_vm_args and java_vm_arguments.\n",
        "failed to parse java VM arguments: {}\nThe full arguments you specified were {}\n",
    )  # fmt: skip


def set_tdp(job: JobInput, ad: Attrs) -> None:
    """The tool daemon: ``tool_daemon_cmd`` and the commands that go with it."""
    cmd = job.param("tool_daemon_cmd", "ToolDaemonCmd")
    if cmd is None:
        return
    ad["ToolDaemonCmd"] = cmd
    for key, attr in (
        ("tool_daemon_input", "ToolDaemonInput"),
        ("tool_daemon_output", "ToolDaemonOutput"),
        ("tool_daemon_error", "ToolDaemonError"),
    ):
        value = job.param(key, attr)
        if value is not None:
            ad[attr] = value
    if job.has("suspend_job_at_exec", "SuspendJobAtExec"):
        ad["SuspendJobAtExec"] = bool_command(job, "suspend_job_at_exec", "SuspendJobAtExec", False)
    _extra_arguments(
        job, ad, "tool_daemon", ("ToolDaemonArgs", "ToolDaemonArguments"),
        "you specified both tdp_daemon_args and tdp_daemon_arguments\n",
        "failed to parse tool daemon arguments: {}\nThe arguments you specified were: {}\n",
    )  # fmt: skip


def set_environment(job: JobInput, ad: Attrs) -> None:
    value = job.param("environment", "env")
    value2 = job.param("environment2")
    allow_v1 = bool_command(job, "allow_environment_v1", None, False)
    prefer_v1 = False
    if value is not None and value2 is None:
        env_cmd = job.param("env")
        prefer_v1 = env_cmd is not None and not is_v2_quoted(env_cmd)
    if value is not None and value2 is not None and not allow_v1:
        raise job.error(
            "If you wish to specify both 'environment' and\n'environment2' for maximal "
            "compatibility with different\nversions of Condor, then you must also specify\n"
            "allow_environment_v1=true.\n",
            "environment2",
        )
    env = Env()
    if job.cluster_ad is not None:
        if value is None and value2 is None:
            return
        first = job.cluster_ad
        env.merge_attributes(first.get("Environment"), first.get("Env"), first.get("EnvDelim"))
    try:
        if value2 is not None:
            env.merge(value2, v2_only=True)
        elif value is not None:
            env.merge(value)
    except ArgsError as exc:
        key = "environment2" if value2 is not None else job.key_used("environment", "env")
        raise job.error(
            f"{exc}\nThe environment you specified was: '{value2 or value}'\n", key
        ) from None
    getenv = job.param("getenv", "get_env")
    if getenv is not None:
        v1_filter = value is not None and value2 is None
        flag = eval_bool(getenv)
        if flag is None:
            env.import_from(job.env, getenv, v1_filter)
        elif flag:
            if eval_bool(job.conf("SUBMIT_ALLOW_GETENV", "true")) is False:
                raise job.error(
                    "\ngetenv = true command not allowed because administrator has set "
                    "SUBMIT_ALLOW_GETENV = false\n",
                    "getenv",
                    "get_env",
                )
            env.import_from(job.env, None, v1_filter)
    if prefer_v1:
        try:
            ad["Env"] = env.v1()
        except ArgsError as exc:
            raise job.error(f"failed to insert environment into job ad: {exc}\n", "env") from None
        ad["EnvDelim"] = ";"
    else:
        ad["Environment"] = env.v2()
