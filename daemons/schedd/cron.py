"""The schedd's daemon ClassAd hooks (``SCHEDD_CRON_*``): their output joins the schedd ad.

How this works
--------------
:class:`ScheddCron` reads ``SCHEDD_CRON_JOBLIST`` and the jobs' knobs once, when the schedd
starts (HTCondor's schedd reads them only on startup: a reconfig changes nothing), and runs
them with :class:`~condorsim.daemoncron.CronRunner` (``SCHEDD_INTERFACE_VERSION=1`` and
``SCHEDD_CRON_NAME=SCHEDD`` in their environment). Each job's last published block replaces
that job's ad: a schedd cron job has one ad, whatever its separator lines say (HTCondor's
``ScheddCronJob::Publish`` ignores the name and ``update:``). :meth:`ScheddCron.merge_into`
puts every job's ad, in job-list order, into the schedd ad as it is built, so the collector
sees them with the schedd's next update (every SCHEDD_INTERVAL, sooner after a reschedule),
as in HTCondor. ``MyType`` and ``MyAddress`` are kept: the pool finds the schedd by them.
"""

from __future__ import annotations

from typing import Any

from condorsim.classad import ClassAd
from condorsim.daemoncron import (
    SCHEDD_CRON,
    CronJobParams,
    CronRunner,
    OutputBlock,
    read_cron_params,
)
from condorsim.hooks import default_timeout
from condorsim.runtime.daemon import DaemonContext

_KEEP = frozenset(("mytype", "myaddress"))


class ScheddCron:
    """The schedd's cron jobs and the ads they published."""

    def __init__(self, ctx: DaemonContext) -> None:
        self.log: Any = ctx.log
        self.ads: dict[str, ClassAd] = {}
        params = read_cron_params(ctx.config.get, SCHEDD_CRON)
        self.order = [job.name for job in params.jobs]
        self.runner = CronRunner(params, log=ctx.log, run_dir=ctx.run_dir, publish=self._publish,
                                 timeout=default_timeout(ctx.config.get), busy=ctx.busy)

    def _publish(self, job: CronJobParams, block: OutputBlock) -> None:
        self.ads[job.name] = block.ad
        self.log.info("cron_ad_published", job=job.name,
                      attrs=sorted(block.ad.keys(), key=str.lower))

    def merge_into(self, ad: ClassAd) -> None:
        for name in self.order:
            published = self.ads.get(name)
            if published is None:
                continue
            for attr, tree in published.pairs():
                if attr.lower() not in _KEEP:
                    ad[attr] = tree
