"""Compiled code of one robot description, kept with the description (thread-safe, no module globals).

A regressor, a forward dynamics or an adjoint is derived from the robot's structure alone and compiled
once. :class:`Kernels` keeps what was built for one :class:`~baseparam.Robot` object, keyed by what else
shapes the code; it lives in that object (:func:`kernels_of`), shared by every :class:`~baseparam.Model`
of it, and goes when the user drops the robot. Equal robot objects do not share kernels: ``==`` ignores
what tells a declared friction value 0 from no friction, and sharing would need a global registry.
"""
from __future__ import annotations

import threading
from collections import OrderedDict

# entries kept per kind, least recently used dropped first: a robot's kinds have a few keys each
# (column sets of base sets, parameter vectors bound for forward dynamics)
DEFAULT_SIZE = 64
_SLOT = "_kernels"
_ATTACH = threading.Lock()          # guards creating a robot's slot, not the kernels themselves
_OWN = "_bound_attributes"          # a bound object's record of the attributes its class's __init__ set


class Kernels:
    """Built code of one robot, by kind and key, built on first request (one thread builds, the
    others wait for it) and kept, a bounded number per kind.

    Pickling or copying gives an empty cache: compiled functions and loaded libraries belong to
    one process.
    """

    def __init__(self):
        self._lock = threading.RLock()       # re-entrant: a build may ask for another kernel
        self._kinds: dict = {}

    def get(self, kind, key, build, size=DEFAULT_SIZE):
        """The entry ``(kind, key)``, built by ``build()`` when missing.

        Parameters
        ----------
        kind : str
            A namespace with its own bound (e.g. ``'regressor'``, ``'forward'``).
        key : hashable
        build : callable
            ``build() -> value``, run under the lock (so the same code is never built twice).
        size : int
            Entries of this kind kept.
        """
        with self._lock:
            entries = self._kinds.setdefault(kind, OrderedDict())
            value = entries.get(key)
            if value is None:
                value = entries[key] = build()
                while len(entries) > size:
                    entries.popitem(last=False)
            else:
                entries.move_to_end(key)
            return value

    def __len__(self):
        with self._lock:
            return sum(len(entries) for entries in self._kinds.values())

    def __reduce__(self):               # pickle, copy and deepcopy alike: a new, empty cache
        return Kernels, ()

    def __repr__(self):
        with self._lock:
            counts = ", ".join(f"{kind}: {len(entries)}" for kind, entries in self._kinds.items())
        return f"Kernels({counts})"


def record_bound(obj, before):
    """At the end of a bound object's ``__init__`` (:class:`~baseparam.Regressor`, :class:`~baseparam.ForwardDynamics`:
    buffers, a lock, a compiled kernel's binding), and of any of its methods that sets more of them later (a
    Regressor binds the C loop compiled after its ``__init__``): note the attributes it set (those of ``obj`` not in
    ``before``, the names it had on entry), added to those noted before, which :func:`reduce_bound` rebuilds instead
    of copying (a memoryview and ctypes pointers cannot be pickled; a copy sharing the buffers raced the original)."""
    noted = obj.__dict__.get(_OWN, frozenset())
    obj.__dict__[_OWN] = noted | (obj.__dict__.keys() - before - {_OWN})


def reduce_bound(obj, base, native):
    """``__reduce__`` of a bound object (pickle, copy and deepcopy): a new object made by ``base.__init__`` from the
    same model in the new process (buffers, locks and ctypes bindings belong to one object and one process), with
    the attributes a subclass added carried as they are, as Python's own pickling carries them."""
    own = obj.__dict__.get(_OWN, frozenset())
    state = {name: value for name, value in obj.__dict__.items() if name not in own and name != _OWN}
    return rebuild_bound, (type(obj), base, obj.model, native), state or None


def rebuild_bound(cls, base, model, native):
    """A ``cls`` object (``base`` or a subclass) initialised by ``base.__init__``: a subclass's ``__init__`` is not
    called (its own attributes come from the pickled state, as for any pickled object)."""
    obj = cls.__new__(cls)
    base.__init__(obj, model, native=native)
    return obj


def kernels_of(robot) -> Kernels:
    """The :class:`Kernels` of a robot object (created on first use, stored in the object)."""
    found = robot.__dict__.get(_SLOT)
    if found is None:
        with _ATTACH:
            found = robot.__dict__.get(_SLOT)
            if found is None:
                found = Kernels()
                object.__setattr__(robot, _SLOT, found)     # Robot is frozen; the slot is not a field
    return found
