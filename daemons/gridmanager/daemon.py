"""condor_gridmanager's runner: one process serving every grid-universe job of the schedd.

How this works
--------------
The schedd signals (GRIDMAN_ADD_JOBS, GRIDMAN_REMOVE_JOBS) and forwards qedits (UPDATE_JOBAD);
the replay driver takes sites down and up (SIM_SITE_DOWN / SIM_SITE_UP). Each of these is
noted and wakes the main loop, which is the only code that changes the
:class:`~.logic.GridManager`. The loop wakes on a message or at the next deadline (a site's
step, a job's poll, a ping, the periodic policy, a due schedd contact), waits for the end of
the simulated instant (so everything that arrived at this instant is in) and then, in this
order: applies the notes, lets time pass in the logic, evaluates every job, writes the
user-log events, saves the sites' state; and when the schedd is to be contacted (a signal,
or attributes to push) and GRIDMANAGER_CONTACT_SCHEDD_DELAY has passed since the last
contact, does HTCondor's ``doContactSchedd``:

1. on the first contact, or after GRIDMAN_ADD_JOBS: QUERY_JOB_ADS for grid jobs to adopt;
2. always: QUERY_JOB_ADS for managed jobs the schedd held, removed or completed;
3. GRIDMAN_UPDATE for each job with dirty attributes (and DestroyProc when it is done).

A contact that fails is tried again after the delay (the schedd is looked up again: a
restarted one listens elsewhere). The sites' state is kept in ``$(SPOOL)/grid_sites.json``:
a restarted gridmanager finds its sites as a real one finds its batch systems, and takes
its jobs back by their GridJobId.

It advertises a ``Gridmanager`` ad (so that the schedd finds it) and one ``Grid`` ad per
site (UPDATE_GRID_AD), at start and every GRIDMANAGER_COLLECTOR_UPDATE_INTERVAL.
"""

from __future__ import annotations

import json
import os
from typing import Any

import trio

from condorsim.classad import ClassAd
from condorsim.eventlog import EventLogError, EventLogWriter, Rusage
from condorsim.eventlog.usage import event_usage_rows
from condorsim.jobs.codes import JobStatus
from condorsim.jobs.managed import NOT_IN_QUEUE
from condorsim.runtime.daemon import DaemonContext
from condorsim.runtime.network import Conn
from condorsim.wire import ConnectionClosed, Message, ProtocolError
from condorsim.wire import messages as m

from .job import GridJob, LogEvent
from .logic import GridManager, Settings
from .sites import read_sites

PEER_ERRORS = (OSError, ConnectionClosed, ProtocolError, trio.BrokenResourceError,
               trio.ClosedResourceError, trio.EndOfChannel)
STATE_FILE = "grid_sites.json"


class Gridmanager:
    def __init__(self, schedd_addr: str | None = None) -> None:
        self._schedd_addr = schedd_addr
        self._schedd_given = schedd_addr is not None
        self._notes: list[Message] = []
        self._wakeup = trio.Event()
        self.logic: GridManager | None = None

    # -- life cycle -----------------------------------------------------------------------
    async def run(self, ctx: DaemonContext, task_status: trio.TaskStatus[str]) -> None:
        self.ctx = ctx
        cfg = ctx.config
        host = ctx.collector_address().strip("<>").rsplit(":", 1)[0]
        settings = Settings(
            seed=ctx.rng.getrandbits(32), pool=host,
            schedd_name=cfg.get("SCHEDD_NAME") or "schedd@localhost",
            default_runtime=cfg.get_int("SIM_DEFAULT_RUNTIME", 600),
            probe_interval=cfg.get_int("GRIDMANAGER_JOB_PROBE_INTERVAL", 60),
            ping_interval=cfg.get_int("GRIDMANAGER_RESOURCE_PROBE_INTERVAL", 300),
            policy_interval=cfg.get_int("PERIODIC_EXPR_INTERVAL", 60),
            contact_delay=cfg.get_int("GRIDMANAGER_CONTACT_SCHEDD_DELAY", 5))
        self._ad_interval = cfg.get_int("GRIDMANAGER_COLLECTOR_UPDATE_INTERVAL", 300)
        self._tz = cfg.get("SIM_TIMEZONE") or "UTC"
        self._log_format = cfg.get("DEFAULT_USERLOG_FORMAT_OPTIONS") or "iso"
        self.logic = GridManager(read_sites(cfg), settings)
        self._state_path = ctx.path("SPOOL", "spool") / STATE_FILE
        self._load_state()
        async with trio.open_nursery() as nursery:
            self.address = await nursery.start(
                lambda task_status: ctx.serve(self._handle, task_status=task_status))
            nursery.start_soon(self._advertise)
            nursery.start_soon(self._main)
            ctx.log.info("gridmanager_started", sites=[s.resource for s in self.logic.specs])
            task_status.started(self.address)

    def _load_state(self) -> None:
        assert self.logic is not None
        try:
            data = json.loads(self._state_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError) as e:
            self.ctx.log.warning("grid_sites_state_unreadable", path=str(self._state_path),
                                 error=str(e))
            return
        try:
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            self.logic.load_state(data)
        except (TypeError, ValueError, KeyError, AttributeError) as e:
            self.ctx.log.warning("grid_sites_state_unusable", path=str(self._state_path),
                                 error=str(e))
            self.logic.load_state({name: {} for name in self.logic.resources})

    def _save_state(self) -> None:
        assert self.logic is not None
        if not self.logic.sites_changed:
            return
        self.logic.sites_changed = False
        tmp = self._state_path.with_suffix(".tmp")
        try:
            self._state_path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(self.logic.state_json(), sort_keys=True), encoding="utf-8")
            tmp.replace(self._state_path)
        except OSError as e:
            self.ctx.log.warning("grid_sites_state_unwritable", error=str(e))

    # -- messages -------------------------------------------------------------------------
    async def _handle(self, msg: Message, conn: Conn) -> None:
        assert self.logic is not None
        if isinstance(msg, m.DC_RECONFIG | m.DC_RECONFIG_FULL):
            return  # knobs are read at start
        if isinstance(msg, m.GRIDMAN_ADD_JOBS | m.GRIDMAN_REMOVE_JOBS):
            self.ctx.log.info("signaled", cmd=msg.command)
            self.logic.signaled()  # as HTCondor: a removal is looked for as an addition too
            self._wakeup.set()
            return
        if isinstance(msg, m.UPDATE_JOBAD):
            self._notes.append(msg)
            self._wakeup.set()
            return
        if isinstance(msg, m.SIM_SITE_DOWN | m.SIM_SITE_UP):
            if " ".join(msg.resource.split()) not in self.logic.resources:
                await conn.send(m.FAILED(reason=f'no site serves "{msg.resource}" (sites: '
                                                f'{", ".join(self.logic.resources) or "none"})'))
                return
            self._notes.append(msg)
            self._wakeup.set()
            await conn.send(m.OK())
            return
        await conn.send(m.FAILED(reason=f"the gridmanager does not take {msg.command}"))

    # -- the main loop --------------------------------------------------------------------
    async def _main(self) -> None:
        while True:
            assert self.logic is not None
            with trio.move_on_at(self.logic.next_deadline()):
                await self._wakeup.wait()
            self._wakeup = trio.Event()
            instant_over = trio.Event()
            now = trio.current_time()
            self.ctx.at_end_of_instant((now, "gridmanager"), instant_over.set)
            await instant_over.wait()
            await self._step(trio.current_time())

    async def _step(self, now: float) -> None:
        logic = self.logic
        assert logic is not None
        notes, self._notes = self._notes, []
        for note in notes:
            if isinstance(note, m.SIM_SITE_DOWN):
                self.ctx.log.info("site_down", resource=note.resource)
                logic.site_down(note.resource, now)
            elif isinstance(note, m.SIM_SITE_UP):
                self.ctx.log.info("site_up", resource=note.resource)
                logic.site_up(note.resource, now)
            elif isinstance(note, m.UPDATE_JOBAD):
                logic.qedit(note.job, note.ad, now)
        logic.tick(now)
        logic.evaluate_all(now)
        self._flush()
        if now >= logic.contact_due():
            await self._contact(now)
            logic.evaluate_all(now)
            self._flush()

    def _flush(self) -> None:
        assert self.logic is not None
        events, self.logic.events = self.logic.events, []
        for job, event in events:
            self._write(job, event)
        self._save_state()

    # -- the schedd -----------------------------------------------------------------------
    async def _contact(self, now: float) -> None:
        """doContactSchedd: adopt, learn of holds and removals, push the changes."""
        logic = self.logic
        assert logic is not None
        adopt, stopped = logic.contact_queries(now)
        address = await self._schedd()
        if address is None:
            return
        try:
            async with await self.ctx.connect(address, "schedd") as conn:
                if adopt is not None:
                    taken = logic.adopt(await self._query(conn, adopt), now)
                    if taken:
                        self.ctx.log.info("jobs_adopted", jobs=taken)
                logic.contact_done(logic.from_schedd(await self._query(conn, stopped), now))
                pushed: list[GridJob] = []
                try:
                    for job in logic.pushes():
                        await self._push(conn, job)
                        pushed.append(job)
                finally:
                    logic.committed(pushed, now)
        except PEER_ERRORS as e:
            self.ctx.log.warning("schedd_contact_failed", error=str(e))
            if not self._schedd_given:
                self._schedd_addr = None

    async def _push(self, conn: Conn, job: GridJob) -> None:
        """GRIDMAN_UPDATE of one job (its attributes are dirty again if it did not go)."""
        ad = job.take_dirty()
        msg = m.GRIDMAN_UPDATE(job=job.id, ad=ad, destroy=job.finished and job.destroy)
        try:
            reply = await conn.request(msg)
        except PEER_ERRORS:
            job.dirty.update(ad.keys())
            raise
        if isinstance(reply, m.FAILED):  # refused: go on, as HTCondor's gridmanager
            self.ctx.log.warning("update_refused", job=job.id, reason=reply.reason)
            if reply.reason.startswith(NOT_IN_QUEUE):
                assert self.logic is not None
                self.logic.vanished(job, trio.current_time())

    async def _query(self, conn: Conn, constraint: str) -> list[ClassAd]:
        reply = await conn.request(m.QUERY_JOB_ADS(constraint=constraint, projection=[]))
        if not isinstance(reply, m.QUERY_RESULT):
            raise ProtocolError(f"the schedd answered {reply.command} to QUERY_JOB_ADS")
        return list(reply.ads)

    async def _schedd(self) -> str | None:
        if self._schedd_addr is not None:
            return self._schedd_addr
        mine = self.ctx.name.replace("gridmanager", "schedd")
        ads = await self._collector_query(m.QUERY_SCHEDD_ADS(constraint="", projection=[]))
        found = [a for a in ads if str(a.evaluate("Name")).split("@", 1)[0] == mine]
        ads = found or (ads if len(ads) == 1 else [])
        address = ads[0].evaluate("MyAddress") if ads else None
        if isinstance(address, str):
            self._schedd_addr = address
            return address
        self.ctx.log.warning("schedd_not_found", name=mine)
        return None

    async def _collector_query(self, msg: Message) -> list[ClassAd]:
        try:
            async with await self.ctx.connect(self.ctx.collector_address(), "collector") as c:
                reply = await c.request(msg)
        except PEER_ERRORS as e:
            self.ctx.log.warning("collector_query_failed", error=str(e))
            return []
        return list(reply.ads) if isinstance(reply, m.QUERY_RESULT) else []

    # -- the collector --------------------------------------------------------------------
    def gridmanager_ad(self) -> ClassAd:
        name = self.ctx.name
        return ClassAd({"MyType": "Gridmanager", "Name": f"{name}@localhost",
                        "ScheddDaemon": name.replace("gridmanager", "schedd"),
                        "MyAddress": self.address})

    def grid_ads(self, now: float) -> list[ClassAd]:
        """BaseResource::PublishResourceAd, one ad per site."""
        assert self.logic is not None
        schedd = self.ctx.config.get("SCHEDD_NAME") or "schedd@localhost"
        out = []
        for name, resource in sorted(self.logic.resources.items()):
            words = name.split()
            jobs = [self.logic.jobs[j] for j in resource.jobs if j in self.logic.jobs]
            ad = ClassAd({
                "MyType": "Grid", "Name": f"{words[0]} {' '.join(words[2 if words[0] == 'batch' else 1:])}",
                "HashName": name, "ScheddName": schedd, "ScheddIpAddr": self._schedd_addr or "",
                "Owner": "condor", "NumJobs": len(jobs), "JobLimit": 1000,
                "SubmitsAllowed": sum(1 for j in jobs if j.remote_id is not None),
                "SubmitsWanted": 0,
                "IdleJobs": sum(1 for j in jobs if j.status == JobStatus.IDLE),
                "RunningJobs": sum(1 for j in jobs if j.status == JobStatus.RUNNING),
                "MyAddress": self.address, "UpdateSequenceNumber": int(now),
            })
            if resource.down:
                ad["GridResourceUnavailableTime"] = int(resource.next_ping -
                                                        self.logic.settings.ping_interval)
            out.append(ad)
        return out

    async def _advertise(self) -> None:
        async with self.ctx.collector_updates() as to_collector:
            while True:
                now = trio.current_time()
                await to_collector.send(m.UPDATE_AD_GENERIC(ad=self.gridmanager_ad()),
                                        *(m.UPDATE_GRID_AD(ad=ad) for ad in self.grid_ads(now)))
                await trio.sleep(self._ad_interval)

    # -- the user log ---------------------------------------------------------------------
    def _write(self, job: GridJob, event: LogEvent) -> None:
        self.ctx.log.info("job_event", job=job.id, kind=event.kind)
        log = job.string("UserLog")
        if not log:
            return
        iwd = job.string("Iwd") or ""
        path = os.path.join(self.ctx.run_dir, iwd, log)
        try:
            writer = EventLogWriter(path, tz=self._tz, fmt=self._log_format)
            write_event(writer, job, event)
        except EventLogError as e:
            self.ctx.log.warning("user_log_failed", job=job.id, error=str(e))


def _number(ad: ClassAd, name: str) -> int | float | None:
    value = ad.evaluate(name)
    return value if type(value) in (int, float) else None


def write_event(writer: EventLogWriter, job: GridJob, event: LogEvent) -> None:
    """Write one :class:`LogEvent` of a grid job (the gridmanager's Write*EventToUserLog)."""
    c, p, t, f = job.cluster, job.proc, event.t, event.fields
    if event.kind == "grid_submit":
        writer.grid_submit(c, p, t, f["resource"], f["job_id"])
    elif event.kind == "execute":
        writer.execute(c, p, t, f["host"])
    elif event.kind == "evicted":
        writer.evicted(c, p, t)
    elif event.kind == "held":
        writer.held(c, p, t, f["reason"], f["code"], f["subcode"])
    elif event.kind == "aborted":
        writer.aborted(c, p, t, f["reason"])
    elif event.kind == "grid_resource_down":
        writer.grid_resource_down(c, p, t, f["resource"])
    elif event.kind == "grid_resource_up":
        writer.grid_resource_up(c, p, t, f["resource"])
    elif event.kind == "terminated":
        writer.terminated(c, p, t, **terminated_fields(job.ad))
    else:
        raise ValueError(f"no user-log event {event.kind!r}")


def terminated_fields(ad: ClassAd) -> dict[str, Any]:
    """WriteTerminateEventToUserLog: the exit, the remote CPU, the usage table of the ad."""
    out: dict[str, Any] = {}
    if ad.evaluate("ExitBySignal") is True:
        out["signal"] = int(_number(ad, "ExitSignal") or 0)
    else:
        out["return_value"] = int(_number(ad, "ExitCode") or 0)
    usage = Rusage(usr=int(_number(ad, "RemoteUserCpu") or 0),
                   sys=int(_number(ad, "RemoteSysCpu") or 0))
    out["run_remote_usage"] = out["total_remote_usage"] = usage
    out["resources"] = event_usage_rows(ad)  # setEventUsageAd, as basejob.cpp calls it
    return out
