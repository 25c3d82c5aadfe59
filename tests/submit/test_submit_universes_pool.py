"""Docker, container, Java and VM jobs in a pool: each runs as any simulated job, on a
slot that advertises what its Requirements ask for (HasDocker, HasContainer, HasJava...),
and never on one that does not. A parallel job has no dedicated scheduler: it runs once,
on one slot, with its MinHosts/MaxHosts only recorded."""

from __future__ import annotations

from pathlib import Path

import trio
import trio.testing

from condorsim.config import Config
from condorsim.runtime.inproc import open_inprocess_pool
from condorsim.wire import messages as m
from daemons.collector.daemon import Collector
from daemons.negotiator.daemon import Negotiator
from daemons.schedd.daemon import Schedd
from daemons.shadow.daemon import Shadow
from daemons.startd.daemon import Startd
from daemons.starter.daemon import Starter

T0 = 1_767_225_600
CONFIG = """
COLLECTOR_HOST = 127.0.0.1:9310
SIM_MACHINES = plain, capable
SIM_MACHINE_plain_SLOTS = 4
SIM_MACHINE_plain_CPUS = 4
SIM_MACHINE_capable_SLOTS = 4
SIM_MACHINE_capable_CPUS = 4
SIM_MACHINE_capable_ATTRS = [ HasDocker = true; HasContainer = true; HasSIF = true; HasDockerURL = true; \
HasJava = true; JavaVersion = "17"; HasVM = true; VM_Type = "kvm"; VM_Memory = 4096; \
VM_AvailNum = 2; TotalMemory = 8192 ]
NEGOTIATOR_INTERVAL = 60
UID_DOMAIN = example.org
"""

JOBS = {
    "docker": "universe = docker\ndocker_image = ubuntu\nexecutable = /bin/sleep\n",
    "container": "universe = container\ncontainer_image = docker://ubuntu\n"
    "executable = /bin/sleep\n",
    "java": "universe = java\nexecutable = Foo.class\narguments = Foo 60\n",
    "vm": "universe = vm\nexecutable = myvm\nvm_type = kvm\nvm_memory = 128\n"
    "vm_disk = a.img:vda:w\n",
}


async def test_capability_jobs_run_only_on_slots_that_advertise_it(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    autojump_clock.jump(T0)
    config = Config.from_text(CONFIG + f"LOCAL_DIR = {tmp_path}\n")
    daemons = [("collector", Collector), ("negotiator", Negotiator), ("schedd", Schedd),
               ("shadow", Shadow), ("startd", Startd), ("starter", Starter)]
    async with open_inprocess_pool(config, tmp_path, daemons) as pool:  # type: ignore[arg-type]
        async with await pool.connect("schedd") as conn:
            for kind, text in JOBS.items():
                reply = await conn.request(m.SUBMIT_JOBS(
                    owner="alice", text=f"{text}arguments = 60\nrequest_memory = 64\nqueue 2\n"
                    if kind != "java" else f"{text}request_memory = 64\nqueue 2\n",
                    iwd=str(tmp_path), source=f"{kind}.sub"))
                assert isinstance(reply, m.SUBMIT_RESULT), (kind, reply)
            plain = await conn.request(m.SUBMIT_JOBS(
                owner="alice", text="executable = /bin/sleep\narguments = 60\n"
                'requirements = Machine == "plain"\nqueue 2\n',
                iwd=str(tmp_path), source="plain.sub"))
            assert isinstance(plain, m.SUBMIT_RESULT)
            parallel = await conn.request(m.SUBMIT_JOBS(
                owner="alice", text="universe = parallel\nexecutable = /bin/sleep\n"
                "arguments = 60\nmachine_count = 2\nqueue\n",
                iwd=str(tmp_path), source="parallel.sub"))
            assert isinstance(parallel, m.SUBMIT_RESULT)
        await trio.sleep(1800)
        async with await pool.connect("schedd") as conn:
            left = await conn.request(m.QUERY_JOB_ADS(constraint="", projection=[]))
            hist = await conn.request(m.QUERY_HISTORY(constraint="", projection=[], limit=0))
    assert isinstance(left, m.QUERY_RESULT) and isinstance(hist, m.QUERY_RESULT)
    assert left.ads == []
    ran = {(a.evaluate("ClusterId"), a.evaluate("ProcId")): a for a in hist.ads}
    assert len(ran) == 11
    for cluster in range(1, 5):
        for proc in range(2):
            ad = ran[(cluster, proc)]
            assert ad.evaluate("ExitCode") == 0
            assert str(ad.evaluate("LastRemoteHost")).endswith("@capable")
    assert all(str(ran[(5, p)].evaluate("LastRemoteHost")).endswith("@plain") for p in (0, 1))
    node = ran[(6, 0)]
    assert (node.evaluate("ExitCode"), node.evaluate("MinHosts"), node.evaluate("JobUniverse")) \
        == (0, 2, 11)
