"""The catalogue of wire messages, grouped by the daemon that serves them.

Every message is a frozen keyword-only dataclass registered under HTCondor's command name
(``src/condor_includes/condor_commands.h``) where one exists; ``SIM_`` commands are
condorsim's own. Add new messages to the group of the daemon that receives them.

=========================== ======================= ===============================================
command                     direction               fields -- meaning
=========================== ======================= ===============================================
*generic replies*
OK                          server -> client        () -- the command was carried out
FAILED                      server -> client        (reason) -- it was not; ``reason`` says why
QUERY_RESULT                collector -> client     (ads) -- the ads matching a QUERY_*

*collector: updates* (reply: none; a daemon sends its ad every update interval)
UPDATE_STARTD_AD            startd -> collector     (ad) -- a slot ad
UPDATE_SCHEDD_AD            schedd -> collector     (ad) -- the schedd ad
UPDATE_SUBMITTOR_AD         schedd -> collector     (ad) -- one submitter ad per submitter
UPDATE_NEGOTIATOR_AD        negotiator -> collector (ad) -- the negotiator ad
UPDATE_MASTER_AD            master -> collector     (ad) -- the master ad
UPDATE_COLLECTOR_AD         collector -> collector  (ad) -- the collector's own ad
UPDATE_GRID_AD              gridmanager -> coll.    (ad) -- a grid resource ad
UPDATE_AD_GENERIC           any -> collector        (ad) -- an ad of any MyType

*collector: invalidations* (reply: none; removes the ads matching ``constraint``)
INVALIDATE_STARTD_ADS       startd -> collector     (constraint) -- slot ads
INVALIDATE_SCHEDD_ADS       schedd -> collector     (constraint) -- schedd ads
INVALIDATE_SUBMITTOR_ADS    schedd -> collector     (constraint) -- submitter ads
INVALIDATE_MASTER_ADS       master -> collector     (constraint) -- master ads
INVALIDATE_NEGOTIATOR_ADS   negotiator -> coll.     (constraint) -- negotiator ads
INVALIDATE_ADS_GENERIC      any -> collector        (adtype, constraint) -- ads whose MyType is adtype

*collector: queries* (reply: QUERY_RESULT; empty projection = every attribute)
QUERY_STARTD_ADS            any -> collector        (constraint, projection) -- slot ads
QUERY_SCHEDD_ADS            any -> collector        (constraint, projection) -- schedd ads
QUERY_SUBMITTOR_ADS         any -> collector        (constraint, projection) -- submitter ads
QUERY_MASTER_ADS            any -> collector        (constraint, projection) -- master ads
QUERY_NEGOTIATOR_ADS        any -> collector        (constraint, projection) -- negotiator ads
QUERY_COLLECTOR_ADS         any -> collector        (constraint, projection) -- collector ads
QUERY_ANY_ADS               any -> collector        (constraint, projection) -- ads of every type
QUERY_GENERIC_ADS           any -> collector        (adtype, constraint, projection) -- by MyType

*daemon control* (reply: none; master commands answer OK or FAILED)
DC_OFF_GRACEFUL             master/tool -> daemon   () -- shut down gracefully
DC_OFF_FAST                 master/tool -> daemon   () -- shut down now
DC_RECONFIG                 master/tool -> daemon   () -- re-read the configuration
DC_RECONFIG_FULL            master/tool -> daemon   () -- full reconfiguration
RESTART                     tool -> master          () -- restart the master and its daemons
DAEMONS_OFF                 tool -> master          () -- stop every daemon, keep the master
DAEMON_OFF                  tool -> master          (name) -- stop one daemon (its subsystem name)
DAEMONS_ON                  tool -> master          () -- start again every daemon stopped
DAEMON_ON                   tool -> master          (name) -- start again one daemon
DRAIN_JOBS                  tool -> startd          (machine, how, reason, check, start,
                                                    on_completion) -- drain a machine (OK/FAILED)
CANCEL_DRAIN_JOBS           tool -> startd          (machine, request_id) -- stop draining it

*negotiation* (negotiator <-> schedd, one connection per submitter per cycle)
RESCHEDULE                  schedd -> negotiator    () -- start a negotiation cycle soon
NEGOTIATE                   negotiator -> schedd    (submitter, ad) -- negotiate for a submitter;
                                                    ad carries AutoClusterAttrs
SEND_RESOURCE_REQUEST_LIST  negotiator -> schedd    (count) -- send up to ``count`` requests
RESOURCE_REQUEST_LIST       schedd -> negotiator    (requests) -- resource-request ads (one per
                                                    autocluster, ``_condor_RESOURCE_COUNT`` set)
NO_MORE_JOBS                schedd -> negotiator    () -- no more requests for this submitter
PERMISSION_AND_AD           negotiator -> schedd    (claim_id, slot_ad, request_index) -- a match
REJECTED_WITH_REASON        negotiator -> schedd    (reason, request_index) -- no match
END_NEGOTIATE               negotiator -> schedd    () -- this submitter's negotiation is over

*claims* (schedd/shadow -> startd; reply: OK or FAILED unless noted)
REQUEST_CLAIM               schedd -> startd        (claim_id, job_ad, scheduler_addr) -- claim a slot
ACTIVATE_CLAIM              shadow -> startd        (claim_id, job_ad, shadow_addr) -- run a job
DEACTIVATE_CLAIM            shadow/schedd -> startd (claim_id) -- stop the job gracefully
DEACTIVATE_CLAIM_FORCIBLY   shadow/schedd -> startd (claim_id) -- kill the job
RELEASE_CLAIM               schedd -> startd        (claim_id) -- give the claim up
ALIVE                       schedd -> startd        (claim_id) -- keep-alive of a claim

*virtual time* (condorsim's own; participant = every pool process, coordinator = master)
SIM_HELLO                   client -> server        (name, method, proof) -- first message of every
                                                    connection: who calls, and its proof: TOKEN
                                                    (a daemon: the pool key's HMAC, fresh, used
                                                    once), FS (a tool: the exchange below) or NONE
SIM_AUTH_CHALLENGE          server -> client        (fs_dir) -- FS: create this directory, mode 0700
SIM_AUTH_PROOF              client -> server        () -- FS: it is made
SIM_AUTH_RESULT             server -> client        (user, error) -- FS: who the client is, or why
                                                    it was refused
SIM_CLOCK_HELLO             participant -> coord.   (name, pid) -- join the coordination
SIM_CLOCK_POLL              coordinator -> part.    (round) -- answer SIM_CLOCK_IDLE once idle
SIM_CLOCK_IDLE              participant -> coord.   (round, sent, received, next_deadline, eoi_pending)
                                                    -- idle now; eoi_pending = end-of-instant work waits
SIM_END_OF_INSTANT          coordinator -> part.    (round) -- run end-of-instant work now
SIM_CLOCK_PREPARE           coordinator -> part.    (now) -- a jump to ``now`` is coming
SIM_CLOCK_PREPARED          participant -> coord.   (now) -- ready for the jump
SIM_CLOCK_ADVANCE           coordinator -> part.    (now) -- simulated time is now ``now``

*grid universe* (schedd <-> gridmanager; docs/gridmanager.md)
GRIDMAN_ADD_JOBS            schedd -> gridmanager   () -- grid jobs to adopt (reply: none)
GRIDMAN_REMOVE_JOBS         schedd -> gridmanager   () -- grid jobs held or removed (reply: none)
UPDATE_JOBAD                schedd -> gridmanager   (job, ad) -- qedit changed a managed job
GRIDMAN_UPDATE              gridmanager -> schedd   (job, ad, destroy) -- set attributes, then
                                                    leave the queue if destroy (OK or FAILED)
SIM_SITE_DOWN               replay -> gridmanager   (resource) -- a simulated site goes down
SIM_SITE_UP                 replay -> gridmanager   (resource) -- ... and comes back

*job router* (job_router -> schedd: qmgmt operations, one transaction each; docs/router.md)
QMGMT_CLAIM_JOB             job_router -> schedd    (job, manager) -- Idle and unmanaged ->
                                                    Managed = External (QMGMT_RESULT ok/busy)
QMGMT_YIELD_JOB             job_router -> schedd    (job, manager, done, release_on_hold) --
                                                    give it back (QMGMT_RESULT ok/stop)
QMGMT_SUBMIT_AD             job_router -> schedd    (owner, ad) -- the routed copy as a new
                                                    cluster (SUBMIT_RESULT or FAILED)
QMGMT_SET_ATTRIBUTES        job_router -> schedd    (job, ad, delete) -- push attributes
                                                    (QMGMT_RESULT)
=========================== ======================= ===============================================

HTCondor's numeric codes and CEDAR encodings are not used: the command travels by name.
"""

from __future__ import annotations

from condorsim.classad import ClassAd
from condorsim.wire.codec import Message, message

# ---- generic replies ---------------------------------------------------------------------


@message("OK")
class OK(Message):
    pass


@message("FAILED")
class FAILED(Message):
    reason: str


@message("QUERY_RESULT")
class QUERY_RESULT(Message):
    ads: list[ClassAd]


# ---- collector: updates (a daemon advertises its ad) -------------------------------------


@message("UPDATE_STARTD_AD")
class UPDATE_STARTD_AD(Message):
    ad: ClassAd


@message("UPDATE_SCHEDD_AD")
class UPDATE_SCHEDD_AD(Message):
    ad: ClassAd


@message("UPDATE_SUBMITTOR_AD")
class UPDATE_SUBMITTOR_AD(Message):
    ad: ClassAd


@message("UPDATE_NEGOTIATOR_AD")
class UPDATE_NEGOTIATOR_AD(Message):
    ad: ClassAd


@message("UPDATE_MASTER_AD")
class UPDATE_MASTER_AD(Message):
    ad: ClassAd


@message("UPDATE_COLLECTOR_AD")
class UPDATE_COLLECTOR_AD(Message):
    ad: ClassAd


@message("UPDATE_GRID_AD")
class UPDATE_GRID_AD(Message):
    ad: ClassAd


@message("UPDATE_AD_GENERIC")
class UPDATE_AD_GENERIC(Message):
    ad: ClassAd


# ---- collector: invalidations (a daemon withdraws its ads) -------------------------------


@message("INVALIDATE_STARTD_ADS")
class INVALIDATE_STARTD_ADS(Message):
    constraint: str


@message("INVALIDATE_SCHEDD_ADS")
class INVALIDATE_SCHEDD_ADS(Message):
    constraint: str


@message("INVALIDATE_SUBMITTOR_ADS")
class INVALIDATE_SUBMITTOR_ADS(Message):
    constraint: str


@message("INVALIDATE_MASTER_ADS")
class INVALIDATE_MASTER_ADS(Message):
    constraint: str


@message("INVALIDATE_NEGOTIATOR_ADS")
class INVALIDATE_NEGOTIATOR_ADS(Message):
    constraint: str


@message("INVALIDATE_ADS_GENERIC")
class INVALIDATE_ADS_GENERIC(Message):
    adtype: str
    constraint: str


# ---- collector: queries (answered with QUERY_RESULT) -------------------------------------


@message("QUERY_STARTD_ADS")
class QUERY_STARTD_ADS(Message):
    constraint: str
    projection: list[str]


@message("QUERY_SCHEDD_ADS")
class QUERY_SCHEDD_ADS(Message):
    constraint: str
    projection: list[str]


@message("QUERY_SUBMITTOR_ADS")
class QUERY_SUBMITTOR_ADS(Message):
    constraint: str
    projection: list[str]


@message("QUERY_MASTER_ADS")
class QUERY_MASTER_ADS(Message):
    constraint: str
    projection: list[str]


@message("QUERY_NEGOTIATOR_ADS")
class QUERY_NEGOTIATOR_ADS(Message):
    constraint: str
    projection: list[str]


@message("QUERY_COLLECTOR_ADS")
class QUERY_COLLECTOR_ADS(Message):
    constraint: str
    projection: list[str]


@message("QUERY_ANY_ADS")
class QUERY_ANY_ADS(Message):
    constraint: str
    projection: list[str]


@message("QUERY_GENERIC_ADS")
class QUERY_GENERIC_ADS(Message):
    adtype: str
    constraint: str
    projection: list[str]


# ---- daemon control (DaemonCore commands, and the master's) ------------------------------


@message("DC_OFF_GRACEFUL")
class DC_OFF_GRACEFUL(Message):
    pass


@message("DC_OFF_FAST")
class DC_OFF_FAST(Message):
    pass


@message("DC_RECONFIG")
class DC_RECONFIG(Message):
    pass


@message("DC_RECONFIG_FULL")
class DC_RECONFIG_FULL(Message):
    pass


@message("RESTART")
class RESTART(Message):
    pass


@message("DAEMONS_OFF")
class DAEMONS_OFF(Message):
    pass


@message("DAEMON_OFF")
class DAEMON_OFF(Message):
    name: str


@message("DAEMONS_ON")
class DAEMONS_ON(Message):
    pass


@message("DAEMON_ON")
class DAEMON_ON(Message):
    name: str


@message("DRAIN_JOBS")
class DRAIN_JOBS(Message):
    machine: str
    how: str  # graceful, quick or fast
    reason: str
    check: str  # an expression every slot must make true, or ""
    start: str  # the START expression while draining, or "" (false)
    on_completion: str  # "" (stay drained) or "resume"


@message("CANCEL_DRAIN_JOBS")
class CANCEL_DRAIN_JOBS(Message):
    machine: str
    request_id: str


# ---- negotiation (negotiator <-> schedd) -------------------------------------------------


@message("RESCHEDULE")
class RESCHEDULE(Message):
    pass


@message("NEGOTIATE")
class NEGOTIATE(Message):
    submitter: str
    ad: ClassAd


@message("SEND_RESOURCE_REQUEST_LIST")
class SEND_RESOURCE_REQUEST_LIST(Message):
    count: int


@message("RESOURCE_REQUEST_LIST")
class RESOURCE_REQUEST_LIST(Message):
    requests: list[ClassAd]


@message("NO_MORE_JOBS")
class NO_MORE_JOBS(Message):
    pass


@message("PERMISSION_AND_AD")
class PERMISSION_AND_AD(Message):
    claim_id: str
    slot_ad: ClassAd
    request_index: int


@message("REJECTED_WITH_REASON")
class REJECTED_WITH_REASON(Message):
    reason: str
    request_index: int


@message("END_NEGOTIATE")
class END_NEGOTIATE(Message):
    pass


# ---- claims (schedd and shadow -> startd) ------------------------------------------------


@message("REQUEST_CLAIM")
class REQUEST_CLAIM(Message):
    claim_id: str
    job_ad: ClassAd
    scheduler_addr: str


@message("ACTIVATE_CLAIM")
class ACTIVATE_CLAIM(Message):
    claim_id: str
    job_ad: ClassAd
    shadow_addr: str


@message("DEACTIVATE_CLAIM")
class DEACTIVATE_CLAIM(Message):
    claim_id: str


@message("DEACTIVATE_CLAIM_FORCIBLY")
class DEACTIVATE_CLAIM_FORCIBLY(Message):
    claim_id: str


@message("RELEASE_CLAIM")
class RELEASE_CLAIM(Message):
    claim_id: str


@message("ALIVE")
class ALIVE(Message):
    claim_id: str


# ---- virtual time (condorsim's own: participants <-> the coordinator in the master) ------


@message("SIM_HELLO")
class SIM_HELLO(Message):
    name: str
    method: str
    proof: str


@message("SIM_AUTH_CHALLENGE")
class SIM_AUTH_CHALLENGE(Message):
    fs_dir: str


@message("SIM_AUTH_PROOF")
class SIM_AUTH_PROOF(Message):
    pass


@message("SIM_AUTH_RESULT")
class SIM_AUTH_RESULT(Message):
    user: str
    error: str


@message("SIM_CLOCK_HELLO")
class SIM_CLOCK_HELLO(Message):
    name: str
    pid: int


@message("SIM_CLOCK_POLL")
class SIM_CLOCK_POLL(Message):
    round: int


@message("SIM_CLOCK_IDLE")
class SIM_CLOCK_IDLE(Message):
    round: int
    sent: int
    received: int
    next_deadline: float | None
    eoi_pending: bool


@message("SIM_END_OF_INSTANT")
class SIM_END_OF_INSTANT(Message):
    round: int


@message("SIM_CLOCK_PREPARE")
class SIM_CLOCK_PREPARE(Message):
    now: float


@message("SIM_CLOCK_PREPARED")
class SIM_CLOCK_PREPARED(Message):
    now: float


@message("SIM_CLOCK_ADVANCE")
class SIM_CLOCK_ADVANCE(Message):
    now: float


# ---- the job flow (docs/protocol.md is the contract: who sends what, when) ---------------
# Tools -> schedd.


@message("SUBMIT_JOBS")
class SUBMIT_JOBS(Message):
    """condor_submit: the schedd translates ``text`` (a submit description) itself."""

    owner: str
    text: str
    iwd: str
    source: str


@message("SUBMIT_RESULT")
class SUBMIT_RESULT(Message):
    cluster: int
    procs: int


@message("ACT_ON_JOBS")
class ACT_ON_JOBS(Message):
    """hold | release | remove | suspend | continue | vacate, by ids ("c" or "c.p") or constraint."""

    action: str
    ids: list[str]
    constraint: str
    reason: str
    owner: str


@message("QEDIT")
class QEDIT(Message):
    ids: list[str]
    constraint: str
    attr: str
    value: str
    owner: str


@message("ACT_RESULT")
class ACT_RESULT(Message):
    done: list[str]
    errors: list[str]


@message("QUERY_JOB_ADS")
class QUERY_JOB_ADS(Message):
    constraint: str
    projection: list[str]


@message("QUERY_HISTORY")
class QUERY_HISTORY(Message):
    constraint: str
    projection: list[str]
    limit: int


# Schedd <-> startd (claims).


@message("CLAIM_RESPONSE")
class CLAIM_RESPONSE(Message):
    accepted: bool
    reason: str
    slot_ad: ClassAd | None


# Schedd <-> shadow.


@message("SHADOW_START")
class SHADOW_START(Message):
    """Run ``job_ad`` (its $$ references expanded) on ``claim_id`` at ``startd_addr``.
    ``schedd_addr`` is where the schedd that sends it listens (HTCondor gives each shadow
    its schedd's address when it spawns it): the job's exit goes there."""

    job_ad: ClassAd
    claim_id: str
    startd_addr: str
    slot_ad: ClassAd
    schedd_addr: str


@message("SHADOW_UPDATE")
class SHADOW_UPDATE(Message):
    """The shadow pushes its dirty job attributes (periodic or immediate). ``durable`` is
    the commit's flag: false for the periodic push, which HTCondor's shadow commits
    NONDURABLE (``QmgrJobUpdater::periodicUpdateQ``), true for an immediate one."""

    job: str
    ad: ClassAd
    durable: bool


@message("SHADOW_UPDATE_REPLY")
class SHADOW_UPDATE_REPLY(Message):
    """Attributes qedit changed since the last exchange (the shadow pulls them)."""

    ad: ClassAd


@message("SHADOW_EXIT")
class SHADOW_EXIT(Message):
    """The shadow instance of ``job`` is done; ``exit_code`` is HTCondor's (condorsim.jobs.codes)."""

    job: str
    exit_code: int
    ad: ClassAd


@message("SHADOW_HOLD")
class SHADOW_HOLD(Message):
    job: str
    reason: str
    code: int
    subcode: int


@message("SHADOW_REMOVE")
class SHADOW_REMOVE(Message):
    job: str
    reason: str


@message("SHADOW_SUSPEND")
class SHADOW_SUSPEND(Message):
    job: str


@message("SHADOW_CONTINUE")
class SHADOW_CONTINUE(Message):
    job: str


@message("SHADOW_VACATE")
class SHADOW_VACATE(Message):
    job: str


@message("SHADOW_QEDIT")
class SHADOW_QEDIT(Message):
    """qedit changed the job: the schedd tells the shadow to take these attributes."""

    job: str
    ad: ClassAd


@message("SHADOW_RECONNECT")
class SHADOW_RECONNECT(Message):
    """A restarted schedd asks the shadow for its instance of ``job`` on ``claim_id``.

    ``reconnect`` true (the job lease is valid): the instance reports to this schedd from
    now on (OK), or FAILED when the shadow has no such instance. False (no lease, or it
    expired): the schedd requeues the job; the instance ends quietly (OK either way). A job
    that already ended is answered, either way, with its SHADOW_EXIT.
    """

    job: str
    claim_id: str
    reconnect: bool


@message("SHADOW_STARTED")
class SHADOW_STARTED(Message):
    """A shadow process that has just started tells its schedd where it listens."""

    address: str


# Startd <-> starter, starter <-> shadow.


@message("STARTER_START")
class STARTER_START(Message):
    claim_id: str
    job_ad: ClassAd
    shadow_addr: str
    slot_ad: ClassAd


@message("REGISTER_STARTER_INFO")
class REGISTER_STARTER_INFO(Message):
    """The starter introduces itself to the shadow as the instance starts (StarterIpAddr, ...)."""

    job: str
    ad: ClassAd


@message("REGISTER_JOB_INFO")
class REGISTER_JOB_INFO(Message):
    """The starter's periodic (and suspend/unsuspend) update of the job's attributes."""

    job: str
    ad: ClassAd


@message("STARTER_UPDATE")
class STARTER_UPDATE(Message):
    """The same update, to the startd."""

    claim_id: str
    ad: ClassAd


@message("BEGIN_EXECUTION")
class BEGIN_EXECUTION(Message):
    job: str


@message("ULOG")
class ULOG(Message):
    """An event the starter asks the shadow to write to the job's event log (HTCondor's
    CONDOR_ulog pseudo call); ``ad`` is the event's ClassAd (a RemoteErrorEvent)."""

    job: str
    ad: ClassAd


@message("JOB_EXIT")
class JOB_EXIT(Message):
    """The starter's final update; ``reason`` is HTCondor's job exit reason code."""

    job: str
    reason: int
    ad: ClassAd


@message("STARTER_EXITED")
class STARTER_EXITED(Message):
    claim_id: str


@message("STARTER_SUSPEND")
class STARTER_SUSPEND(Message):
    job: str


@message("STARTER_CONTINUE")
class STARTER_CONTINUE(Message):
    job: str


@message("STARTER_HOLD")
class STARTER_HOLD(Message):
    job: str


@message("STARTER_REMOVE")
class STARTER_REMOVE(Message):
    job: str


# Job router -> schedd: the queue management (qmgmt) operations of HTCondor's
# condor_job_router/submit_job.cpp, each done by the schedd in one transaction.


@message("QMGMT_CLAIM_JOB")
class QMGMT_CLAIM_JOB(Message):
    """claim_job: if the job is Idle and Managed is missing or "Schedd", set Managed =
    "External" and ManagedManager = ``manager``. Reply QMGMT_RESULT (code ok/busy/error)."""

    job: str
    manager: str


@message("QMGMT_YIELD_JOB")
class QMGMT_YIELD_JOB(Message):
    """yield_job: hand a job back (Managed "Schedd", or "ScheddDone" when ``done``).
    Reply QMGMT_RESULT (code ok/stop/error)."""

    job: str
    manager: str
    done: bool
    release_on_hold: bool


@message("QMGMT_SUBMIT_AD")
class QMGMT_SUBMIT_AD(Message):
    """submit_job: a new cluster of one proc from a whole job ad, as ``owner``.
    Reply SUBMIT_RESULT or FAILED."""

    owner: str
    ad: ClassAd


@message("QMGMT_SET_ATTRIBUTES")
class QMGMT_SET_ATTRIBUTES(Message):
    """push_dirty_attributes: set (and delete) attributes of one job; a JobStatus change
    never moves a job away from Removed or Completed. Reply QMGMT_RESULT."""

    job: str
    ad: ClassAd
    delete: list[str]


@message("QMGMT_RESULT")
class QMGMT_RESULT(Message):
    ok: bool
    code: str
    reason: str


# Schedd <-> gridmanager (docs/gridmanager.md). HTCondor's schedd signals its gridmanager
# (GRIDMAN_ADD_JOBS, GRIDMAN_REMOVE_JOBS, UPDATE_JOBAD); the gridmanager reads the queue with
# qmgmt queries (QUERY_JOB_ADS here) and writes it with SetAttribute and DestroyProc.


@message("GRIDMAN_ADD_JOBS")
class GRIDMAN_ADD_JOBS(Message):
    """There are grid jobs the gridmanager does not manage yet: look at the queue."""


@message("GRIDMAN_REMOVE_JOBS")
class GRIDMAN_REMOVE_JOBS(Message):
    """Grid jobs the gridmanager manages were held or removed: look at the queue."""


@message("UPDATE_JOBAD")
class UPDATE_JOBAD(Message):
    """qedit changed ``ad``'s attributes of a job the gridmanager manages."""

    job: str
    ad: ClassAd


@message("GRIDMAN_UPDATE")
class GRIDMAN_UPDATE(Message):
    """The gridmanager's changes to one job (SetAttribute each), then, with ``destroy``, the
    job leaves the queue (DestroyProc). Answered OK, or FAILED when there is no such job."""

    job: str
    ad: ClassAd
    destroy: bool


# Replay driver -> gridmanager (condorsim's own: a simulated site's outage).


@message("SIM_SITE_DOWN")
class SIM_SITE_DOWN(Message):
    """The simulated site serving ``resource`` goes down (OK, or FAILED: no such site)."""

    resource: str


@message("SIM_SITE_UP")
class SIM_SITE_UP(Message):
    """The simulated site serving ``resource`` is back (OK, or FAILED: no such site)."""

    resource: str


# ---- authorization: each command's access level (HTCondor's, docs/security.md) ----------
# None: not a command a server takes from a new peer (a reply, the handshake, or a message
# inside a conversation the receiver started). A command missing here is DAEMON.

_READ, _WRITE, _ADMIN, _DAEMON, _NEGOTIATOR = (
    "READ", "WRITE", "ADMINISTRATOR", "DAEMON", "NEGOTIATOR")

COMMAND_LEVELS: dict[str, str | None] = {
    # replies and the handshake
    "OK": None, "FAILED": None, "QUERY_RESULT": None, "SUBMIT_RESULT": None,
    "ACT_RESULT": None, "QMGMT_RESULT": None, "CLAIM_RESPONSE": None,
    "SHADOW_UPDATE_REPLY": None, "RESOURCE_REQUEST_LIST": None, "NO_MORE_JOBS": None,
    "SIM_HELLO": None, "SIM_AUTH_CHALLENGE": None, "SIM_AUTH_PROOF": None,
    "SIM_AUTH_RESULT": None,
    # virtual time travels on the coordinator's own link, never through a daemon's handler
    "SIM_CLOCK_HELLO": _DAEMON, "SIM_CLOCK_POLL": _DAEMON, "SIM_CLOCK_IDLE": _DAEMON,
    "SIM_END_OF_INSTANT": _DAEMON, "SIM_CLOCK_PREPARE": _DAEMON, "SIM_CLOCK_PREPARED": _DAEMON,
    "SIM_CLOCK_ADVANCE": _DAEMON,
    # collector: ads are advertised by daemons (ADVERTISE_* is DAEMON in recommended_v9_0)
    **dict.fromkeys((
        "UPDATE_STARTD_AD", "UPDATE_SCHEDD_AD", "UPDATE_SUBMITTOR_AD", "UPDATE_NEGOTIATOR_AD",
        "UPDATE_MASTER_AD", "UPDATE_COLLECTOR_AD", "UPDATE_GRID_AD", "UPDATE_AD_GENERIC",
        "INVALIDATE_STARTD_ADS", "INVALIDATE_SCHEDD_ADS", "INVALIDATE_SUBMITTOR_ADS",
        "INVALIDATE_MASTER_ADS", "INVALIDATE_NEGOTIATOR_ADS", "INVALIDATE_ADS_GENERIC"),
        _DAEMON),
    **dict.fromkeys((
        "QUERY_STARTD_ADS", "QUERY_SCHEDD_ADS", "QUERY_SUBMITTOR_ADS", "QUERY_MASTER_ADS",
        "QUERY_NEGOTIATOR_ADS", "QUERY_COLLECTOR_ADS", "QUERY_ANY_ADS", "QUERY_GENERIC_ADS",
        "QUERY_JOB_ADS", "QUERY_HISTORY"), _READ),
    # daemon control: condor_off / on / restart / reconfig / drain are ADMINISTRATOR
    **dict.fromkeys((
        "DC_OFF_GRACEFUL", "DC_OFF_FAST", "DC_RECONFIG", "DC_RECONFIG_FULL", "RESTART",
        "DAEMONS_OFF", "DAEMON_OFF", "DAEMONS_ON", "DAEMON_ON", "DRAIN_JOBS",
        "CANCEL_DRAIN_JOBS"), _ADMIN),
    # the user's commands to the schedd (condor_submit, condor_rm, condor_qedit ...)
    **dict.fromkeys(("SUBMIT_JOBS", "ACT_ON_JOBS", "QEDIT"), _WRITE),
    # negotiation: the negotiator's commands to the schedd
    **dict.fromkeys(("NEGOTIATE", "SEND_RESOURCE_REQUEST_LIST", "PERMISSION_AND_AD",
                     "REJECTED_WITH_REASON", "END_NEGOTIATE"), _NEGOTIATOR),
    # claims, the schedd's RESCHEDULE to the negotiator, shadows, starters, the router and
    # the gridmanager: daemons only
    **dict.fromkeys((
        "REQUEST_CLAIM", "ACTIVATE_CLAIM", "DEACTIVATE_CLAIM", "DEACTIVATE_CLAIM_FORCIBLY",
        "RELEASE_CLAIM", "ALIVE", "RESCHEDULE", "SHADOW_START", "SHADOW_UPDATE", "SHADOW_EXIT",
        "SHADOW_HOLD", "SHADOW_REMOVE", "SHADOW_SUSPEND", "SHADOW_CONTINUE", "SHADOW_VACATE",
        "SHADOW_QEDIT", "SHADOW_RECONNECT", "SHADOW_STARTED", "STARTER_START",
        "REGISTER_STARTER_INFO", "REGISTER_JOB_INFO", "STARTER_UPDATE", "BEGIN_EXECUTION",
        "ULOG", "JOB_EXIT", "STARTER_EXITED", "STARTER_SUSPEND", "STARTER_CONTINUE",
        "STARTER_HOLD", "STARTER_REMOVE", "QMGMT_CLAIM_JOB", "QMGMT_YIELD_JOB",
        "QMGMT_SUBMIT_AD", "QMGMT_SET_ATTRIBUTES", "GRIDMAN_ADD_JOBS", "GRIDMAN_REMOVE_JOBS",
        "UPDATE_JOBAD", "GRIDMAN_UPDATE", "SIM_SITE_DOWN", "SIM_SITE_UP"), _DAEMON),
}


def command_level(command: str) -> str | None:
    """The access level a peer needs to send ``command`` (DAEMON when it is not listed)."""
    return COMMAND_LEVELS.get(command, _DAEMON)
