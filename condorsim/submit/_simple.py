"""The submit commands that map one-to-one to a job attribute.

How this works
--------------
HTCondor's ``prunable_keywords`` table (submit_utils.cpp) lists, for each such command,
the attribute it sets and how the value is read; ``SetSimpleJobExprs`` walks the part
of the table before the commands with special handling. Each command may also be
written as its attribute name (``NextJobStartDelay = 60`` works like
``next_job_start_delay = 60``). Kinds:

* ``expr`` -- a ClassAd expression (a parse error refuses the job);
* ``bool``/``int``/``uint`` -- read as condor_submit reads booleans and integers
  (a constant expression is evaluated; ``uint`` must not be negative);
* ``string`` -- the text; ``strip`` drops white space and one pair of surrounding
  double quotes; ``list`` normalises white space and commas to commas; ``logfile``
  makes the name absolute against the job's Iwd.

A command marked ``alt`` is skipped when the command before it in the table was set
(``materialize_max_idle`` after ``max_idle``, ``prio`` after ``priority``).
"""

from __future__ import annotations

from ._commands import bool_command, int_command, parse_expr_command
from ._job import Attrs, JobInput
from ._paths import join_path

EXPR, BOOL, INT, UINT, STRING = "expr", "bool", "int", "uint", "string"

# (submit command, attribute, kind, options) in HTCondor's order.
SIMPLE_COMMANDS: tuple[tuple[str, str, str, frozenset[str]], ...] = tuple(
    (key, attr, kind, frozenset(opts.split()))
    for key, attr, kind, opts in (
        ("next_job_start_delay", "NextJobStartDelay", EXPR, ""),
        ("keep_claim_idle", "KeepClaimIdle", EXPR, ""),
        ("job_ad_information_attrs", "JobAdInformationAttrs", STRING, ""),
        ("ulog_execute_attrs", "UserLogExecuteEventAttrs", STRING, ""),
        ("max_idle", "JobMaterializeMaxIdle", EXPR, ""),
        ("materialize_max_idle", "JobMaterializeMaxIdle", EXPR, "alt"),
        ("docker_network_type", "DockerNetworkType", STRING, ""),
        ("docker_pull_policy", "DockerPullPolicy", STRING, ""),
        ("docker_override_entrypoint", "DockerOverrideEntrypoint", BOOL, ""),
        ("container_target_dir", "ContainerTargetDir", STRING, "strip"),
        ("transfer_container", "TransferContainer", BOOL, ""),
        ("transfer_plugins", "TransferPlugins", STRING, ""),
        ("want_io_proxy", "WantIOProxy", BOOL, ""),
        ("starter_debug", "JobStarterDebug", STRING, "strip"),
        ("starter_log", "JobStarterLog", STRING, "strip logfile"),
        ("job_machine_attrs", "JobMachineAttrs", STRING, ""),
        ("job_machine_attrs_history_length", "JobMachineAttrsHistoryLength", INT, ""),
        ("notify_user", "NotifyUser", STRING, ""),
        ("email_attributes", "EmailAttributes", STRING, "list"),
        ("remote_initialdir", "RemoteIwd", STRING, ""),
        ("Remote_grid_resource", "Remote_GridResource", STRING, ""),
        ("Remote_Remote_grid_resource", "Remote_Remote_GridResource", STRING, ""),
        ("output_destination", "OutputDestination", STRING, ""),
        ("want_graceful_removal", "WantGracefulRemoval", EXPR, ""),
        ("job_max_vacate_time", "JobMaxVacateTime", EXPR, ""),
        ("encrypt_execute_directory", "EncryptExecuteDirectory", BOOL, ""),
        ("encrypt_input_files", "EncryptInputFiles", STRING, ""),
        ("encrypt_output_files", "EncryptOutputFiles", STRING, ""),
        ("dont_encrypt_input_files", "DontEncryptInputFiles", STRING, ""),
        ("dont_encrypt_output_files", "DontEncryptOutputFiles", STRING, ""),
        ("load_profile", "LoadProfile", BOOL, ""),
        ("file_remaps", "FileRemaps", EXPR, ""),
        ("buffer_files", "BufferFiles", EXPR, ""),
        ("buffer_size", "BufferSize", EXPR, ""),
        ("buffer_block_size", "BufferBlockSize", EXPR, ""),
        ("fetch_files", "FetchFiles", STRING, ""),
        ("compress_files", "CompressFiles", STRING, ""),
        ("append_files", "AppendFiles", STRING, ""),
        ("local_files", "LocalFiles", STRING, ""),
        ("log", "UserLog", STRING, "logfile"),
        ("dagman_log", "DAGManNodesLog", STRING, "logfile"),
        ("log_xml", "UserLogUseXML", BOOL, ""),
        ("noop_job", "IsNoopJob", EXPR, ""),
        ("noop_job_exit_signal", "NoopJobExitSignal", EXPR, ""),
        ("noop_job_exit_code", "NoopJobExitCode", EXPR, ""),
        ("dag_node_name", "DAGNodeName", STRING, ""),
        ("match_list_length", "LastMatchListLength", INT, ""),
        ("dagman_job_id", "DAGManJobId", UINT, ""),
        ("submit_event_notes", "SubmitEventNotes", STRING, ""),
        ("submit_event_user_notes", "SubmitEventUserNotes", STRING, ""),
        ("stack_size", "StackSize", EXPR, ""),
        ("jar_files", "JarFiles", STRING, ""),
        ("parallel_script_shadow", "ParallelScriptShadow", STRING, ""),
        ("parallel_script_starter", "ParallelScriptStarter", STRING, ""),
        ("cron_minute", "CronMinute", STRING, ""),
        ("cron_hour", "CronHour", STRING, ""),
        ("cron_day_of_month", "CronDayOfMonth", STRING, ""),
        ("cron_month", "CronMonth", STRING, ""),
        ("cron_day_of_week", "CronDayOfWeek", STRING, ""),
        ("description", "JobDescription", STRING, ""),
        ("batch_name", "JobBatchName", STRING, "strip"),
        ("batch_id", "JobBatchId", STRING, "strip"),
        ("max_job_retirement_time", "MaxJobRetirementTime", EXPR, ""),
        ("job_lease_duration", "JobLeaseDuration", EXPR, ""),
        ("core_size", "CoreSize", INT, ""),
        ("priority", "JobPrio", INT, ""),
        ("prio", "JobPrio", INT, "alt"),
        ("run_as_owner", "RunAsOwner", BOOL, ""),
        ("max_transfer_input_mb", "MaxTransferInputMB", EXPR, ""),
        ("max_transfer_output_mb", "MaxTransferOutputMB", EXPR, ""),
        ("manifest", "ManifestDesired", BOOL, ""),
        ("manifest_dir", "ManifestDir", STRING, ""),
        ("checkpoint_exit_code", "SuccessCheckpointExitCode", INT, ""),
        ("checkpoint_destination", "CheckpointDestination", STRING, ""),
        ("aws_region", "AWSRegion", STRING, ""),
        ("aws_access_key_id_file", "EC2AccessKeyId", STRING, ""),
        ("aws_secret_access_key_file", "EC2SecretAccessKey", STRING, ""),
        ("s3_access_key_id_file", "EC2AccessKeyId", STRING, ""),
        ("s3_secret_access_key_file", "EC2SecretAccessKey", STRING, ""),
        ("gs_access_key_id_file", "EC2AccessKeyId", STRING, ""),
        ("gs_secret_access_key_file", "EC2SecretAccessKey", STRING, ""),
        ("erase_output_and_error_on_restart", "EraseOutputAndErrorOnRestart", BOOL, ""),
        ("transfer_checkpoint_files", "TransferCheckpoint", STRING, ""),
        ("preserve_relative_paths", "PreserveRelativePaths", BOOL, ""),
        ("cuda_version", "CUDAVersion", STRING, ""),
        ("skip_if_dataflow", "SkipIfDataflow", BOOL, ""),
        ("allowed_job_duration", "AllowedJobDuration", EXPR, ""),
        ("allowed_execute_duration", "AllowedExecuteDuration", EXPR, ""),
        ("jobset", "JobSetName", STRING, "strip"),
    )
)


def strip_quotes(text: str) -> str:
    """``trim_and_strip_quotes_in_place``: trim white space, then one pair of ``"``."""
    text = text.strip(" \t\n\r\v\f")
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        text = text[1:-1]
    return text


def stripped_in_place(text: str) -> str:
    """What the original text reads after ``trim_and_strip_quotes_in_place`` cut it in
    place (condor_submit quotes it so in messages): trailing white space and the closing
    quote gone, the opening one kept."""
    s = text.rstrip(" \t\n\r\v\f")
    inner = s.lstrip(" \t\n\r\v\f")
    if len(inner) >= 2 and inner[0] == '"' and inner[-1] == '"':
        s = s[:-1]
    return s


def as_list(text: str) -> str:
    """HTCondor's ``split`` then ``join(",")``: items separated by commas and white space."""
    return ",".join(text.replace(",", " ").split())


def set_simple(job: JobInput, ad: Attrs) -> None:
    """``SetSimpleJobExprs``: every command of ``SIMPLE_COMMANDS`` that is set."""
    previous_set = False
    for key, attr, kind, opts in SIMPLE_COMMANDS:
        if "alt" in opts and previous_set:
            previous_set = False
            continue
        value = job.param(key, attr)
        previous_set = value is not None
        if value is None:
            continue
        if kind == STRING:
            text = strip_quotes(value) if "strip" in opts else value
            if "list" in opts:
                text = as_list(text)
            if "logfile" in opts and text:
                text = join_path(job.iwd, text)
            ad[attr] = text
        elif kind == BOOL:
            ad[attr] = bool_command(job, key, attr, False, strict=True)
        elif kind in (INT, UINT):
            number = int_command(job, key, attr, strict=True)
            assert number is not None
            if kind == UINT and number < 0:
                raise job.error(
                    f"{key}={value} is invalid, must eval to a non-negative integer.", key, attr
                )
            ad[attr] = number
        else:
            ad[attr] = parse_expr_command(job, attr, value, key, attr)
