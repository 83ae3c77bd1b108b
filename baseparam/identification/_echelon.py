"""Gauss–Jordan elimination to a reduced row echelon form, for the small dense row spaces of identification
(a payload's identifiable coordinates, what a floating-base route sees)."""
from __future__ import annotations

import numpy as np


def gauss_jordan(R, tolerance, zero, relative=False):
    """Reduce ``R`` (r × n, float, changed in place) to reduced row echelon form, pivots in column order.

    Parameters
    ----------
    R : ndarray, shape (r, n)
    tolerance : float
        A column whose largest remaining entry is below it has no pivot (times the current max |R| when
        ``relative``).
    zero : float
        Entries below it afterwards are set to 0.

    Returns
    -------
    R : ndarray, shape (r, n)
    pivots : list of int
    """
    rank = len(R)
    row, pivots = 0, []
    for col in range(R.shape[1]):
        if row == rank:
            break
        k = row + int(np.argmax(np.abs(R[row:, col])))
        if abs(R[k, col]) < tolerance * (max(np.abs(R).max(), 1e-300) if relative else 1.0):
            continue
        R[[row, k]] = R[[k, row]]
        R[row] /= R[row, col]
        for r in range(rank):
            if r != row:
                R[r] -= R[r, col] * R[row]
        pivots.append(col)
        row += 1
    R[np.abs(R) < zero] = 0.0
    return R, pivots
