"""A model's regressor bound for one sample at a time: :class:`Regressor`.

:func:`~baseparam.regressor` of one sample spends most of its time finding the compiled code and checking and
converting its arguments, far more than the C loop takes (``bench/`` prints the figures). A controller or an
estimator that asks for one sample at a time (1 kHz) binds it once here: the inputs are copied into this object's
buffer, their values checked in one sum, and the C loop called without releasing the GIL (as
:class:`~baseparam.ForwardDynamics`). The buffer's fill, the call and the copy out hold the object's lock: threads
may share one object (a switch between one thread's copy in and its call would otherwise give it another thread's
W, silently).
"""
from __future__ import annotations

import ctypes
import threading

import numpy as np

from .._validation import ABSURD, check_flag
from ..model._kernels import record_bound, reduce_bound
from ..model.value import require_model
from ._compiled import regressor_function
from ._native import address, holding_gil
from .regressors import _columns, _pivots, columns_at
from .samples import friction_rows


class Regressor:
    """A model's joint-torque regressor W(q, q̇, q̈) (τ = W @ p) for one sample at a time.

    The same numbers as :func:`~baseparam.regressor` ``(model, q, qd, qdd)`` to the bit (the same compiled C loop),
    and the same errors: a call whose arguments are not three float64 arrays of the robot's length with values
    within the checks' bounds is handed to :func:`~baseparam.regressor` whole, which checks, converts (lists,
    other dtypes) and refuses in one line what it refuses. A floating base, or a machine without a C compiler,
    is served by it at every call. A call writes into buffers of this object, under its lock, and returns a
    fresh array: threads may share one object (they then take turns; one object each runs them side by side).

    Parameters
    ----------
    model : Model, BaseModel or BaseParameters
        The robot and its parameterization (its values are not needed). A base model or a base set gives the
        base regressor (the pivot columns), as :func:`~baseparam.regressor` does.
    native : bool
        Compile the C loop now (once per robot structure; cached on disk). False leaves it to the first 64
        calls of this robot's regressor, which :func:`~baseparam.regressor` serves meanwhile.

    Attributes
    ----------
    backend : {'c', 'python'}
        What a call of one sample runs.

    Examples
    --------
    >>> import numpy as np, baseparam as bp
    >>> robot = bp.parse_robot("{units: {length: m, angle: deg}, joints: [{type: revolute, alpha: 0, a: 0, d: 0}]}")
    >>> W = bp.Regressor(bp.find_base_parameters(robot))
    >>> W([0.0], [0.0], [2.0]).shape                  # one joint, one base parameter (ZZ1R)
    (1, 1)
    """

    def __init__(self, model, *, native=True):
        before = set(self.__dict__)             # a subclass's attributes set before this __init__
        resolved = require_model(model)
        check_flag(native, "native")
        robot = resolved.robot
        self.model, self.robot = resolved, robot
        self._columns = _columns(robot, resolved.parameters, _pivots(resolved))
        self._loop = regressor_function(robot, resolved.parameters, self._columns, "regressor").native
        self._call = None                       # the C loop's batch, held GIL, once bound
        self._lock = threading.Lock()           # the buffers' fill, the call and the copy out: one thread at a time
        if native and not robot.is_floating:
            self._bind(self._loop())
        record_bound(self, before)

    @property
    def backend(self):
        """'c' when calls run the compiled C loop, else 'python' (:func:`~baseparam.regressor`'s numpy code)."""
        return "c" if self._call is not None else "python"

    def __reduce__(self):
        # pickle, copy and deepcopy: a new object of the same model; the buffers, the lock and the C loop's binding
        # are this object's and this process's own (ctypes pointers and a lock cannot be pickled nor shared by a copy)
        return reduce_bound(self, Regressor, self.backend == "c")        # (a subclass's own attributes carried)

    def __call__(self, q, qd, qdd):
        """W of one sample: q, q̇, q̈ of shape (n_dof,) → a new ndarray (n_dof, n_columns).

        Anything else (other shapes, types or values beyond the checks' bound) as :func:`~baseparam.regressor`
        ``(model, q, qd, qdd)`` takes it.
        """
        call = self._call
        if call is None:
            return self._general(q, qd, qdd)
        with self._lock:
            try:                                # a float64 buffer of the length copied in C; anything else raises
                if not type(q) is type(qd) is type(qdd) is np.ndarray:
                    raise TypeError             # a masked array's buffer holds its masked values: the full checks
                self._view_q[:] = q
                self._view_qd[:] = qd
                self._view_qdd[:] = qdd
            except (TypeError, ValueError):
                fast = False
            else:
                # every value within ±ABSURD when their magnitudes' sum is (NaN and inf fail): else the full checks
                fast = sum(map(abs, self._states.tolist())) <= ABSURD
            if fast:
                if self._shapes is not None:    # the Coulomb and Stribeck columns' shapes of this q̇
                    self._shapes[:] = np.concatenate(friction_rows(self.robot, self._qd[:, None]), axis=1).T
                call(*self._arguments)
                return self._out.copy()
        return self._general(q, qd, qdd)

    def _general(self, q, qd, qdd):
        out = columns_at(self.robot, self.model.parameters, self._columns, {"q": q, "qd": qd, "qdd": qdd})
        if self._call is None and not self.robot.is_floating and self._loop.compiled:
            with self._lock:                    # once: a second binding would swap the buffers under a call
                if self._call is None:
                    self._bind(self._loop())    # compiled meanwhile (the 64th call): bound from now on
        return out

    def _bind(self, lib):
        """Buffers and the arguments of the C loop's ``batch`` for one sample (nothing without a library)."""
        if lib is None:
            return
        before = set(self.__dict__)             # bound after __init__ too (_general): the buffers noted as its own
        n, width = self.robot.n_dof, len(self._columns)
        # q, q̇, q̈, then the friction shapes (sgn, stb) in one block; q̇ stands for the unread q̇_r
        b = self._buffer = np.zeros(5 * n)
        self._q, self._qd = b[:n], b[n:2 * n]
        self._states, self._shapes = b[:3 * n], (b[3 * n:].reshape(2, n) if self._loop.reads_shapes else None)
        view = memoryview(b)
        self._view_q, self._view_qd, self._view_qdd = view[:n], view[n:2 * n], view[2 * n:3 * n]
        self._out = np.zeros((n, width))
        rows = [address(b) + 8 * n * k for k in (0, 1, 2, 1, 3, 4)]
        self._arguments = (ctypes.c_long(1), ctypes.c_int(1), *map(ctypes.c_void_p, rows),
                           ctypes.c_void_p(address(self._out)))
        self._call = holding_gil(lib.batch)
        record_bound(self, before)

    def __repr__(self):
        return f"Regressor({self.model!r}, backend={self.backend!r})"


__all__ = ["Regressor"]
