"""What ``fit``/``predict``/``score`` accept: trajectories, file names or (q, qd, qdd, tau) arrays, one or a list."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .._numbers import real_array
from ..errors import DataError
from .preprocessing import Processed
from .trajectory import Trajectory, read_trajectory


def _as_trajectories(data, what):
    """A list of Trajectory/Processed from one or several trajectories, file names or arrays."""
    items = list(data) if isinstance(data, (list, tuple)) and not _is_state_tuple(data) else [data]
    if not items:
        raise DataError(f"{what}: no trajectory given")
    out = []
    for item in items:
        if isinstance(item, (str, Path)):
            item = read_trajectory(item)
        elif _is_state_tuple(item):          # arrays without time stamps: used as given
            q, qd, qdd, tau = (real_array(f"{what}: {name}", a, DataError)   # complex, dates, text refused
                               for name, a in zip(("q", "qd", "qdd", "tau"), item))
            S = len(q)
            if not all(a.shape == q.shape and a.ndim == 2 for a in (qd, qdd, tau)):
                raise DataError(f"{what}: (q, qd, qdd, tau) must have the same shape (n_samples, n_dof), got "
                                f"{', '.join(str(a.shape) for a in (q, qd, qdd, tau))}")
            if not all(np.isfinite(a).all() for a in (q, qd, qdd, tau)):
                raise DataError(f"{what}: (q, qd, qdd, tau) contain NaN or inf")
            item = Processed(t=np.arange(S, dtype=float), q=q, qd=qd, qdd=qdd, tau=tau, segment=np.zeros(S, int),
                             kept=np.ones(S, bool), source=f"<{what} arrays>",
                             record={"preprocessing": "none (arrays)"})
        if not isinstance(item, (Trajectory, Processed)):
            raise DataError(f"{what}: expected a Trajectory, a file name or a (q, qd, qdd, tau) tuple, "
                            f"got {type(item).__name__}")
        out.append(item)
    return out


def _is_state_tuple(x):
    return isinstance(x, tuple) and len(x) == 4 and all(isinstance(a, np.ndarray) for a in x)
