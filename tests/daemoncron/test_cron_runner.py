"""A cron job run for real: a job that exits non-zero still publishes, and
``<MGR>_CRON_LOG_NON_ZERO_EXIT`` decides whether its stdout and stderr are logged."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from condorsim.config import Config
from condorsim.daemoncron import STARTD_CRON, CronRunner, read_cron_params
from condorsim.daemoncron.output import OutputBlock
from condorsim.daemoncron.params import CronJobParams


@pytest.mark.parametrize("log_knob", [True, False])
def test_a_failing_job_publishes_and_is_logged_only_with_log_non_zero_exit(
        tmp_path: Path, log_knob: bool) -> None:
    job = tmp_path / "sensor"
    job.write_text("#!/bin/sh\necho 'Temp = 40'\necho 'sensor: late' >&2\nexit 1\n")
    job.chmod(0o755)
    params = read_cron_params(Config.from_text(
        f"STARTD_CRON_JOBLIST = sensor\nSTARTD_CRON_SENSOR_EXECUTABLE = {job}\n"
        "STARTD_CRON_SENSOR_MODE = OneShot\n"
        f"STARTD_CRON_LOG_NON_ZERO_EXIT = {str(log_knob).lower()}\n").get, STARTD_CRON)
    records: list[tuple[str, str, dict[str, object]]] = []
    published: list[object] = []

    class Log:
        def __getattr__(self, level: str) -> object:
            return lambda event, **f: records.append((level, event, f))

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            def publish(_job: CronJobParams, block: OutputBlock) -> None:
                published.append(block.ad.evaluate("Temp"))
                nursery.cancel_scope.cancel()

            runner = CronRunner(params, log=Log(), run_dir=tmp_path, publish=publish,
                                timeout=10)
            nursery.start_soon(runner.run)

    trio.run(main)
    assert published == [40]  # published whatever the exit status
    logged = [(level, event, f.get("status"), f.get("stderr")) for level, event, f in records]
    if log_knob:
        assert logged == [("warning", "cron_job_failed", "exited with status 1", "sensor: late\n")]
    else:
        assert logged == [("info", "cron_job_exited", "exited with status 1", None)]
