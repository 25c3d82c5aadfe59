"""ClassAds and expressions survive pickle (dask moves them between processes that way):
the copy is the same tree, with its own process's hash, and evaluates to the same value."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

from hypothesis import given, settings
from msgpack import ExtType, packb
from test_eval_diff import EXPRESSIONS

from condorsim.classad import ClassAd, ad_from_wire, parse_expr


def _same_value(a: object, b: object) -> bool:
    return type(a) is type(b) and repr(a) == repr(b)


@settings(max_examples=200, deadline=None)
@given(EXPRESSIONS)
def test_a_pickled_expression_is_the_same_tree_and_value(text: str) -> None:
    tree = parse_expr(text)
    copy = pickle.loads(pickle.dumps(tree))
    assert copy == tree and hash(copy) == hash(tree) and str(copy) == str(tree)
    ad = ClassAd({"X": tree, "a": 3, "b": "text", "c": [1, 2.5]})
    again = pickle.loads(pickle.dumps(ad))
    assert _same_value(again.evaluate("X"), ad.evaluate("X"))


def test_an_ad_from_the_wire_evaluates_after_pickle() -> None:
    ad = ad_from_wire({"Req": ExtType(3, b"Cpus > 2"), "Cpus": 4})
    assert ad.evaluate("Req") is True
    assert pickle.loads(pickle.dumps(ad)).evaluate("Req") is True


def test_a_tree_pickled_in_another_process_equals_ours() -> None:
    """String hashes differ between processes (PYTHONHASHSEED): a tree's hash, made from
    them, is made again where it is unpickled, or equal trees would compare unequal."""
    text = 'Owner == "alice" && member("x", {"x", "y"}) && My.Name =!= Target.Name'
    code = ("import pickle, sys; from condorsim.classad import parse_expr; "
            f"sys.stdout.buffer.write(pickle.dumps(parse_expr({text!r})))")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         check=True).stdout
    copy = pickle.loads(out)
    assert copy == parse_expr(text) and hash(copy) == hash(parse_expr(text))


def test_a_time_literal_keeps_its_exact_value() -> None:
    """A time's text would round its zone offset to minutes; the pickled literal does not."""
    ad = ad_from_wire({"T": ExtType(5, packb([1767603600, 5430])),
                       "R": ExtType(6, packb(90.25))})
    again = pickle.loads(pickle.dumps(ad))
    assert again.evaluate("T") == ad.evaluate("T") and again.evaluate("R") == 90.25
