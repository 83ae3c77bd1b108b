"""The files of an excitation design: the plain trajectory CSV and the JSON report, written atomically;
:func:`load_excitation` takes the JSON back."""
from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Real

from .._atomic import write_text
from .._json_text import json_text
from .._checks import read_json, shown
from .._validation import check_field_kinds, check_input
from .._values import ComparedByValue
from ..errors import DataError, printable


def trajectory_csv(samples):
    """The CSV text: header ``t,q1..qN,qd1..qN,qdd1..qN``, one row per sample, SI, shortest exact decimals
    (the samples as they are: cond(W_b) was measured on them)."""
    n = samples.q.shape[1]
    header = ",".join(["t"] + [f"{f}{j}" for f in ("q", "qd", "qdd") for j in range(1, n + 1)])
    rows = [",".join(map(repr, [t, *q, *v, *a]))
            for t, q, v, a in zip(samples.t.tolist(), samples.q.tolist(), samples.qd.tolist(), samples.qdd.tolist())]
    return "\n".join([header, *rows]) + "\n"


def write_trajectory_csv(path, samples):
    """Write :func:`trajectory_csv` to ``path`` atomically."""
    write_text(path, trajectory_csv(samples))


def write_json(path, doc):
    """Write a JSON document atomically (strict JSON: NaN and inf as null)."""
    write_text(path, json_text(doc))


@dataclass(frozen=True, eq=False)      # == by value: _values.ComparedByValue
class SavedExcitation(ComparedByValue):
    """An excitation design as ``excite --json`` wrote it, loaded back (:func:`load_excitation`).

    Attributes
    ----------
    series : FourierSeries
        The trajectory's coefficients, exactly as designed (JSON keeps every float64).
    rate : float
        The output rate, Hz.
    samples : Samples
        The series at ``rate`` from 0 to the period: the samples of ``excite --out`` and the ones
        ``condition_number`` was measured on (bit for bit what the design held).
    robot, criterion : str
    condition_number : float or None
        As the document gives it: inf where it has null (the writer's word for an infinite number), None where it
        has none.
    document : dict
        The whole JSON document (docs/formats.md, "Excitation design").
    source : str
    """

    series: object
    rate: float
    samples: object = field(repr=False)
    robot: str
    criterion: str
    condition_number: float
    document: dict = field(repr=False)
    source: str = ""

    def __post_init__(self):
        # built by hand (the class is exported): a text where a series or samples belong would fail in their users
        from .fourier import FourierSeries, Samples        # fourier imports nothing of this module's; kept lazy alike
        text = (str, "a str")
        check_field_kinds(self, {"series": (FourierSeries, "a baseparam.FourierSeries"),
                                 "samples": (Samples, "the series' Samples"), "rate": (Real, "a rate (Hz)"),
                                 "robot": text, "criterion": text,
                                 "condition_number": ((Real, None), "a number or None"),
                                 "document": (dict, "a dict"), "source": text})

    @property
    def trajectory(self):
        """The samples (a :class:`~baseparam.Trajectory` without torques, to simulate or follow)."""
        return self.samples


# The largest saved design read (a design of 64 joints and 100 harmonics is about 1 MB of JSON).
MAX_DOCUMENT_BYTES = 64 << 20


def load_excitation(path) -> SavedExcitation:
    """Load an excitation design written by ``baseparam excite --json`` (or ``ExcitationDesign.to_json``).

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    SavedExcitation
        ``series`` (FourierSeries) and ``samples`` equal to the design's, to the last bit.

    Raises
    ------
    DataError
        Not JSON, or a document without the coefficients, period and rate of a design (one line
        naming the file and the field).
    """
    import math

    import numpy as np

    from .fourier import FourierSeries, _check_size, sample_count

    path = check_input(path, error=DataError)
    source = printable(path)
    doc = read_json(path, MAX_DOCUMENT_BYTES, source, DataError, "the document ExcitationDesign.to_json writes")
    if not isinstance(doc, dict):
        raise DataError(f"{source}: expected the JSON object ExcitationDesign.to_json writes, got {type(doc).__name__}")

    def number(key):
        value = doc.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise DataError(f"{source}: field {key}: expected a positive number, got {shown(value)}")
        return float(value)

    period, rate = number("period"), number("rate")
    coefficients = doc.get("coefficients")
    if not isinstance(coefficients, dict):
        raise DataError(f"{source}: field coefficients: missing (not a document ExcitationDesign.to_json wrote?)")
    arrays = {}
    for key in ("q0", "a", "b"):
        try:
            arr = np.array(coefficients.get(key), dtype=np.float64)
        except (TypeError, ValueError):
            arr = None
        ndim = 1 if key == "q0" else 2
        if arr is None or arr.ndim != ndim or arr.size == 0 or not np.isfinite(arr).all():
            raise DataError(f"{source}: field coefficients.{key}: expected a finite "
                            f"{'list of numbers' if ndim == 1 else 'list of lists of numbers'}")
        arrays[key] = arr
    if not (arrays["a"].shape == arrays["b"].shape and arrays["a"].shape[0] == arrays["q0"].shape[0]):
        raise DataError(f"{source}: field coefficients: q0 {arrays['q0'].shape}, a {arrays['a'].shape} and "
                        f"b {arrays['b'].shape} do not describe one series (n_dof, harmonics)")
    # the series' own size limit, said as this file's (FourierSeries would raise it as an argument's)
    _check_size(arrays["a"].shape, f"{source}: field coefficients.a", DataError)
    series = FourierSeries(period, arrays["q0"], arrays["a"], arrays["b"])
    # the samples' own rule, said as this file's (an edited rate would give samples past the period, the last one
    # taken as at rest)
    sample_count(period, rate, f"{source}: field rate", DataError)
    return SavedExcitation(series, rate, series.sample(rate), str(doc.get("robot", "")), str(doc.get("criterion", "")),
                           _condition_number(doc, source), doc, source)


def _condition_number(doc, source):
    """The document's ``condition_number``: inf for null (json_text writes a non-finite number so, and a condition
    number is never NaN), None without the field (a design written by hand); anything else but a number ≥ 1 refused.
    Read as a plain float, null, a text or no field would be NaN, and -1 would be taken."""
    if "condition_number" not in doc:
        return None
    cond = doc["condition_number"]
    if cond is None:
        return float("inf")
    if isinstance(cond, bool) or not isinstance(cond, (int, float)) or not cond >= 1:
        raise DataError(f"{source}: field condition_number: expected a number ≥ 1 (a condition number) or null, got "
                        f"{shown(cond)}")
    return float(cond)
