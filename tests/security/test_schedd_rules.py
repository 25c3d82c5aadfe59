"""The schedd's rules: only the owner or a queue super user touches a job; nobody names
another owner but a super user; immutable, protected and secure attributes (facts 10). A
refusal changes nothing and says why."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorsim.config import Config
from condorsim.eventlog import read_events
from daemons.schedd.queue import JobQueue, attr_rules
from daemons.schedd.store import ScheddError

T0 = 1_767_225_600
SUB = "executable = /bin/sleep\nlog = job.log\n+AuthTokenSubject = \"forged\"\nqueue 2\n"


def _queue(tmp_path: Path, config: str = "") -> tuple[JobQueue, list[tuple[str, str]]]:
    q = JobQueue(tmp_path / "spool", super_users=["root", "condor"])
    q.attr_rules = attr_rules(Config.from_text(config))
    ignored: list[tuple[str, str]] = []
    q.on_secure_ignored = lambda attr, user: ignored.append((attr, user))
    q.open(T0)
    q.submit("alice", SUB, str(tmp_path), "job.sub", T0)
    return q, ignored


def test_only_the_owner_or_a_super_user_acts_on_a_job(tmp_path: Path) -> None:
    q, _ = _queue(tmp_path)
    before = q.jobs[(1, 0)].copy()
    for action in ("hold", "release", "remove"):
        out = q.act(action, ["1.0"], "", "", "bob", T0 + 1)
        assert out.done == [] and out.errors == [f"Permission denied to {action} job 1.0"]
    out = q.qedit(["1.0"], "", "Foo", "1", "bob", T0 + 1)
    assert out.errors == ["Permission denied to edit job 1.0"]
    assert q.jobs[(1, 0)] == before  # nothing changed
    assert [e.type for e in read_events(tmp_path / "job.log")] == ["SUBMIT", "SUBMIT"]
    assert q.act("hold", ["1.0"], "", "", "alice", T0 + 2).done == ["1.0"]
    assert q.act("release", ["1.0"], "", "", "condor", T0 + 3).done == ["1.0"]
    assert q.act("remove", ["1.1"], "", "", "root", T0 + 4).done == ["1.1"]


def test_only_a_super_user_names_another_owner(tmp_path: Path) -> None:
    q, _ = _queue(tmp_path)
    assert q.acting_user("alice", "") == "alice"
    assert q.acting_user("alice", "alice") == "alice"
    assert q.acting_user("condor", "bob") == "bob"  # a daemon, the replay driver, root
    with pytest.raises(ScheddError, match='SetEffectiveOwner security violation: setting '
                                          'owner to root when active owner is "mallory"'):
        q.acting_user("mallory", "root")


@pytest.mark.parametrize("attr", ["Owner", "ClusterId", "JobUniverse", "User", "OsUser"])
def test_immutable_attributes_are_never_changed(tmp_path: Path, attr: str) -> None:
    q, _ = _queue(tmp_path)
    before = q.jobs[(1, 0)].copy()
    with pytest.raises(ScheddError, match=f"Update of attribute {attr} is not allowed"):
        q.qedit(["1.0"], "", attr, '"root"', "condor", T0 + 1)
    assert q.jobs[(1, 0)] == before


def test_the_admins_immutable_and_protected_lists(tmp_path: Path) -> None:
    q, _ = _queue(tmp_path, "IMMUTABLE_JOB_ATTRS = Project\nPROTECTED_JOB_ATTRS = Priority\n")
    with pytest.raises(ScheddError, match="Update of attribute Project is not allowed"):
        q.qedit(["1.0"], "", "Project", '"x"', "condor", T0 + 1)
    with pytest.raises(ScheddError, match=r"it is protected .PROTECTED_JOB_ATTRS.: only a queue "
                                          "super user may change it"):
        q.qedit(["1.0"], "", "Priority", "10", "alice", T0 + 1)
    assert q.jobs[(1, 0)].lookup("Priority") is None
    assert q.qedit(["1.0"], "", "Priority", "10", "root", T0 + 1).done == ["1.0"]
    assert q.jobs[(1, 0)].evaluate("Priority") == 10


def test_secure_attributes_are_the_schedds_alone(tmp_path: Path) -> None:
    q, ignored = _queue(tmp_path)
    ad = q.jobs[(1, 0)]
    assert ad.lookup("AuthTokenSubject") is None  # the submitted value was dropped
    assert ad.evaluate("TotalSubmitProcs") == 2  # ... and the schedd's own is set
    assert ("AuthTokenSubject", "alice") in ignored
    out = q.qedit(["1.0"], "", "TotalSubmitProcs", "99", "alice", T0 + 1)
    assert out.errors == []  # ignored, as HTCondor's schedd ignores it
    assert q.jobs[(1, 0)].evaluate("TotalSubmitProcs") == 2
    assert ("TotalSubmitProcs", "alice") in ignored


def test_secure_attributes_refused_when_not_ignoring(tmp_path: Path) -> None:
    q, _ = _queue(tmp_path, "IGNORE_ATTEMPTS_TO_SET_SECURE_JOB_ATTRS = false\n")
    with pytest.raises(ScheddError, match="only the schedd sets it"):
        q.qedit(["1.0"], "", "AuthTokenId", '"x"', "alice", T0 + 1)
