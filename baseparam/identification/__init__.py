"""Identification of the base parameters from measured motion.

``trajectory``      :class:`Trajectory`, :func:`read_trajectory`, :func:`from_dataframe`,
                    :func:`from_arrays`, :func:`parse_column_map` — logs in
``preprocessing``   :class:`Preprocessing`, :func:`preprocess`
``estimators``      :class:`BaseParameterEstimator`, :func:`identify`, :class:`Identification`,
                    :class:`Metrics`
``plots``           figures of a fit
"""
from .estimators import BaseParameterEstimator, Identification, Metrics, identify
from .preprocessing import Preprocessing, Processed, preprocess
from .trajectory import Trajectory, from_arrays, from_dataframe, parse_column_map, read_trajectory

__all__ = ["BaseParameterEstimator", "Identification", "Metrics", "Preprocessing", "Processed", "Trajectory",
           "from_arrays", "from_dataframe", "identify", "parse_column_map", "preprocess", "read_trajectory"]
