"""Identification of the base parameters from measured motion.

``trajectory``      :class:`Trajectory`, :func:`read_trajectory`, :func:`from_dataframe`,
                    :func:`from_arrays`, :func:`parse_column_map` — logs in
``preprocessing``   :class:`Preprocessing`, :func:`preprocess`
``estimators``      :class:`BaseParameterEstimator`, :func:`identify`, :class:`Identification`,
                    :class:`Metrics`
``results``         :class:`Identification`, :class:`Metrics` (defined here, re-exported by
                    ``estimators``)
``plots``           figures of a fit
"""
import importlib

# Names are imported on first use (PEP 562): reading a trajectory needs only numpy, while the
# estimators bring in the projection stage.
_WHERE = {
    **dict.fromkeys(("BaseParameterEstimator", "Identification", "Metrics", "identify"), "estimators"),
    **dict.fromkeys(("Preprocessing", "Processed", "preprocess"), "preprocessing"),
    **dict.fromkeys(("Trajectory", "from_arrays", "from_dataframe", "parse_column_map", "read_trajectory"),
                    "trajectory"),
}

__all__ = ["BaseParameterEstimator", "Identification", "Metrics", "Preprocessing", "Processed", "Trajectory",
           "from_arrays", "from_dataframe", "identify", "parse_column_map", "preprocess", "read_trajectory"]


def __getattr__(name):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value          # later lookups skip this hook
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
