"""The files of an excitation design: the plain trajectory CSV and the JSON report, written atomically."""
from __future__ import annotations

from .._atomic import json_text, write_text


def trajectory_csv(samples):
    """The CSV text: header ``t,q1..qN,qd1..qN,qdd1..qN``, one row per sample, SI, shortest exact decimals.

    The samples are written as they are: :meth:`FourierSeries.sample` already gives the rest states
    of the first and last rows exact zeros for q̇ and q̈, so the file is the samples cond(W_b) was
    measured on.
    """
    n = samples.q.shape[1]
    header = ",".join(["t"] + [f"{f}{j}" for f in ("q", "qd", "qdd") for j in range(1, n + 1)])
    rows = [header]
    for t, q, v, a in zip(samples.t.tolist(), samples.q.tolist(), samples.qd.tolist(), samples.qdd.tolist()):
        rows.append(",".join(map(repr, [t, *q, *v, *a])))
    return "\n".join(rows) + "\n"


def write_trajectory_csv(path, samples):
    """Write :func:`trajectory_csv` to ``path`` atomically."""
    write_text(path, trajectory_csv(samples))


def write_json(path, doc):
    """Write a JSON document atomically (strict JSON: NaN and inf as null)."""
    write_text(path, json_text(doc))
