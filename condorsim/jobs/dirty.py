"""A copy of a job ad that remembers what changed since it was last sent (the dirty attributes).

How this works
--------------
HTCondor's shadow and gridmanager keep their own copy of a job's ClassAd with dirty tracking
(``ClassAd::EnableDirtyTracking``) and push only the changed attributes to the schedd.
:class:`DirtyAd` is that: :meth:`~DirtyAd.set` changes an attribute and marks it,
:meth:`~DirtyAd.take_dirty` returns the marked ones (and clears the marks),
:meth:`~DirtyAd.take_clean` takes attributes the schedd changed without marking them.
"""

from __future__ import annotations

from typing import Any

from condorsim.classad import ClassAd


class DirtyAd:
    """A job ad (``self.ad``) and the names of its attributes changed since the last push."""

    def __init__(self, ad: ClassAd) -> None:
        self.ad = ad.copy()
        self.dirty: set[str] = set()

    def set(self, name: str, value: Any) -> None:
        self.ad[name] = value
        self.dirty.add(name)

    def take_dirty(self) -> ClassAd:
        """The dirty attributes (in name order); they are clean after."""
        out = ClassAd()
        for name in sorted(self.dirty, key=str.lower):
            tree = self.ad.lookup(name)
            if tree is not None:
                out[self.ad.spelling(name) or name] = tree
        self.dirty.clear()
        return out

    def take_clean(self, ad: ClassAd) -> None:
        """Attributes the schedd changed (qedit): ours now, and not dirty."""
        for name, tree in ad.pairs():
            self.ad[name] = tree
            self.dirty.discard(name)
