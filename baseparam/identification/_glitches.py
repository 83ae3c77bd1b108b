"""Time stamps that jump ahead and back: which rows of a log are the glitch (both the checks of arrays
in :mod:`._record` and the row-by-row reading in :mod:`._rows` ask)."""
from __future__ import annotations

import numpy as np

# A stamp that jumps ahead of the stamps of the next this many rows is a glitch (that row is
# dropped, not those after it); so is a run of up to this many rows after such a jump.
_GLITCH_RUN = 10

# Beyond this many places where time goes back, the stamps are garbage rather than glitched: no
# glitch is looked for (which would cost a loop per place).
_MAX_DESCENTS = 10_000


def _jumps_ahead(t):
    """[(i, i - 1 or -1, next consistent i)] for the rows of ``t`` whose stamps jump ahead and back.

    At each place where time does not increase (d → d+1) there are two readings: the rows after d
    until time passes t[d] again went back (what the running-maximum rule drops), or the rows i to
    d whose stamps exceed t[d+1], with t[i-1] < t[d+1], jumped ahead. A reading holds when its run
    has at most :data:`_GLITCH_RUN` rows; when both hold the shorter run is the bad one (ties: the
    rows that went back). A run at the start of the file (no row before it to confirm the jump)
    jumped ahead only if the other reading fails. Neither holds for a clock restart (time goes
    back and stays back), left to the running-maximum rule.
    """
    n, K = t.size, _GLITCH_RUN
    out, glitched = [], np.zeros(n, dtype=bool)
    # Only strict descents not undone by the next row can be jumps ahead (a duplicate, or a
    # stamp back that the next row passes, is the running-maximum rule's single bad row).
    d_all = np.flatnonzero(t[1:] < t[:-1])
    nxt2 = np.append(t[2:], -np.inf)[d_all]
    d_all = d_all[~(nxt2 > t[d_all])]
    if d_all.size > _MAX_DESCENTS:
        return out          # no clock in these stamps to compare with; every row is judged as it comes
    for d in d_all:
        if glitched[d]:
            continue
        back = np.flatnonzero(t[d + 2:d + 2 + K] > t[d])       # the rows after d+1 that pass t[d]
        k = d
        while k >= 0 and d - k < K and t[k] > t[d + 1]:
            k -= 1
        if k >= 0 and not t[k] < t[d + 1]:
            continue                     # a longer run, or equal stamps: not a glitch
        # Both readings possible: the shorter bad run wins; at the start of the file (no row
        # before to confirm the jump) the rows after it must not pass it.
        if back.size and (k < 0 or d - k >= back[0] + 1):
            continue
        for i in range(k + 1, d + 1):
            if not glitched[i]:
                glitched[i] = True
                out.append((i, k if k >= 0 else -1, d + 1))
    return out
