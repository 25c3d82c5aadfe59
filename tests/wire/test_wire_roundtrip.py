"""Every registered message survives encode -> decode, with field values drawn from its types."""

from __future__ import annotations

import _sample_messages  # noqa: F401  (registers the TEST_* messages: every field type)
import msgpack
import pytest
from _strategies import messages_of
from hypothesis import given, settings
from hypothesis import strategies as st

from condorsim.wire import Message, decode, encode, registered_messages
from condorsim.wire import messages as catalogue

ALL_COMMANDS = sorted(registered_messages())


def test_the_catalogue_is_registered() -> None:
    in_catalogue = {
        obj.command
        for obj in vars(catalogue).values()
        if isinstance(obj, type) and issubclass(obj, Message) and obj is not Message
    }
    assert in_catalogue <= set(ALL_COMMANDS)
    assert {"UPDATE_STARTD_AD", "QUERY_GENERIC_ADS", "SIM_CLOCK_IDLE"} <= in_catalogue


@pytest.mark.parametrize("command", ALL_COMMANDS)
@settings(deadline=None, max_examples=25)
@given(data=st.data())
def test_every_message_round_trips(command: str, data: st.DataObject) -> None:
    cls = registered_messages()[command]
    msg = data.draw(messages_of(cls))
    payload = encode(msg)
    back = decode(payload)
    assert type(back) is cls
    assert back == msg
    assert encode(back) == payload
    obj = msgpack.unpackb(payload)
    assert next(iter(obj)) == "cmd" and obj["cmd"] == command
