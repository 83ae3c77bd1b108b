"""Exception hierarchy: every error subclasses a builtin so callers catch what they know."""


class BaseParamError(Exception):
    """Root of all errors raised deliberately by baseparam."""


class ArgumentError(BaseParamError, ValueError):
    """An argument of a library function is invalid (shape, value, option).

    The message names the parameter, what was expected and what was received, e.g.
    ``qd: expected shape (n_samples, 6) or (6,), got (10, 5)``.
    """


class RobotDescriptionError(BaseParamError, ValueError):
    """A robot description (YAML file or :class:`~baseparam.Robot`) is invalid.

    The message names the file, the joint and the field, e.g.
    ``robots/arm.yaml: joints[3].alpha: expected a finite number, got 'abc'``.
    """


class ResourceLimitError(BaseParamError, MemoryError):
    """The requested computation would not fit in this machine's memory or time budget."""


class StorageError(BaseParamError, OSError):
    """An HDF5/JSON file could not be read or written."""


class DataError(BaseParamError, ValueError):
    """A trajectory (file, DataFrame or arrays) or an identification setting is invalid.

    The message names the file, the line or row (or key), the field and the problem, e.g.
    ``ur.csv: line 7: field qd3: not a number ('abc')``.
    """


class ExportError(BaseParamError, ValueError):
    """An export request is invalid (unknown language or function, bad prefix, output not a directory)."""


class NotFittedError(DataError, AttributeError):
    """An estimator was used (``predict``, ``score``, ``validate``) before ``fit``.

    Like scikit-learn's ``NotFittedError`` it is also a ``ValueError`` and an ``AttributeError``;
    it is a :class:`DataError` too, which is what earlier versions raised.
    """


class AccuracyWarning(UserWarning):
    """A result is exact in structure (rank, pivots) but its floating-point values are inaccurate,
    e.g. regroupings of a robot with a twist within 1e-7 rad of 90°."""


class ExcitationWarning(UserWarning):
    """The identification data do not determine some base parameters well (high condition number,
    large relative standard deviations, or directions not excited at all)."""


class DataWarning(UserWarning):
    """Measured data look suspicious but usable: velocities that disagree with the positions,
    a cut-off above the Nyquist frequency (no filtering), a very poor fit."""


class RoundOffWarning(UserWarning):
    """A number of a robot description within round-off of a special value was taken as that value,
    e.g. a gravity component of 6e-16 m/s² beside 9.81 (as 0), or a twist of 89.99999999999999° (as 90°).
    The engine decides rank and regroupings exactly, so it must not read round-off as geometry."""


class PhysicalConsistencyWarning(UserWarning):
    """A robot description (a URDF) holds a physically impossible inertia — principal moments that are
    negative or violate the triangle inequality — which is kept as written, as pinocchio does."""


class DescriptionWarning(UserWarning):
    """A robot description was read with an assumption worth knowing, e.g. a URDF ``--root`` below
    movable joints, whose gravity direction is then taken at q = 0 of those joints."""
