"""Later procs of a cluster that depend on no per-proc value are made from the proc before
them (condor_submit's expansion once per cluster): the ads are those a full expansion of
every proc gives."""

from __future__ import annotations

import pytest

from condorsim.submit import Submit, _submit

TEXTS = [
    "executable = /bin/sleep\narguments = 60\nrequest_memory = 1024\nqueue 5\n",
    "executable = /bin/sleep\narguments = $(Process)\nqueue 4\n",
    "executable = /bin/sleep\noutput = out.$(ClusterId).$(ProcId)\nqueue 3\n",
    "executable = /bin/sleep\n+Seed = $RANDOM_INTEGER(0, 1000000)\nqueue 4\n",
    "executable = /bin/sleep\nx = $(Step)\narguments = $(x)\nqueue 3\n",
    "executable = /bin/sleep\nqueue 2\narguments = 7\nqueue 3\nexecutable = /bin/true\nqueue 2\n",
    "executable = /bin/sleep\narguments = $(Item)\nqueue 2 in (a, b, c)\n",
    "executable = /bin/sleep\n+Name = \"$(name)\"\nqueue name from (\n  x\n  y\n  z\n)\n",
    "executable = /bin/sleep\narguments = $(Row)\nqueue 1 in (a, b, c)\n",
    # per-proc values read only from the +Attr step on: the earlier steps are not run again
    "executable = /bin/sleep\n+SimRuntime = $(rt)\nrequest_memory = 1024\n"
    "queue rt from (\n  300\n  600\n  900\n)\n",
    "executable = /bin/sleep\n+A = $(Process)\n+B = \"b\"\nqueue 4\n",
    "executable = /bin/sleep\n+RequestMemory = $(Process) + 1\nqueue 3\n",
    "executable = /bin/sleep\n+Requirements = TARGET.SlotID == $(Process)\nqueue 3\n",
    "executable = /bin/sleep\nrequest_memory = $(Process) + 1\n+C = $(Step)\nqueue 3\n",
]


def _ads(text: str) -> list[str]:
    return [str(ad) for ad in Submit(text, config={"FULL_HOSTNAME": "h"}).jobs(
        clusterid=7, qdate=100, owner="alice")]


@pytest.mark.parametrize("text", TEXTS)
def test_template_gives_the_ads_of_a_full_expansion(text: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _ads(text)
    # "executable" is looked up by every proc: with it per-proc, no template is ever used
    monkeypatch.setattr(_submit, "_PER_PROC", (*_submit._PER_PROC, "executable"))
    assert fast == _ads(text)


def test_procs_made_from_a_template_differ_in_procid_only() -> None:
    ads = list(Submit("executable = /bin/sleep\nqueue 4\n", config={"FULL_HOSTNAME": "h"}).jobs(
        clusterid=3, qdate=100, owner="alice"))
    assert [ad["ProcId"].evaluate() for ad in ads] == [0, 1, 2, 3]
    for ad in ads[2:]:
        assert {n: str(t) for n, t in ad.pairs() if n != "ProcId"} == \
            {n: str(t) for n, t in ads[1].pairs() if n != "ProcId"}
    ads[2]["Arguments"] = "changed"  # a caller changing one ad changes no other
    assert [ad.evaluate("Arguments") for ad in ads] == ["", "", "changed", ""]
