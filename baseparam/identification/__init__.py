"""Identification of the base parameters from measured motion.

``trajectory``      :class:`Trajectory`, :func:`read_trajectory`, :func:`from_dataframe`,
                    :func:`from_arrays`, :func:`parse_column_map` — logs in
``writers``         :func:`write_trajectory` — a trajectory out as CSV, NPZ, Parquet or MCAP
``delay``           :func:`estimate_delay` (→ :class:`DelayEstimate`) — the effort's delay behind the positions
``preprocessing``   :class:`Preprocessing`, :func:`preprocess`
``estimators``      :class:`BaseParameterEstimator`, :func:`identify`, :class:`Identification`,
                    :class:`Metrics`
``results``         :class:`Identification`, :class:`Metrics` (defined here, re-exported by
                    ``estimators``), :class:`LogResult`
``floating``        :func:`identify_floating` (→ :class:`FloatingIdentification`) — floating-base robots
                    by joint torques and contact wrenches, the base equations alone, or momentum
``imu``             :func:`~baseparam.identification.imu.base_from_imu` — a floating base from an IMU's readings
``logs``            :func:`identify_logs` — many logs, each reduced on its own (processes, Dask)
``drive_gains``     :func:`controller_gains` (→ :class:`ControllerGains`) — drive gains from the controller's
                    own torque-to-current map (a log's commanded torque and commanded current)
``plots``           figures of a fit (matplotlib, imported on first use): :func:`plot_torques` (measured
                    and predicted torque against time), :func:`plot_residuals`, :func:`plot_parameters`
                    (estimates ± 2σ); :func:`time_axis` (a :class:`Metrics`' times laid end to end,
                    with breaks where preprocessing left samples out, for figures of one's own)
"""
from .._lazy import lazy_names

# Names are imported on first use (PEP 562): reading a trajectory needs only numpy, while the
# estimators bring in the projection stage.
_WHERE = {
    **dict.fromkeys(("BaseParameterEstimator", "Identification", "Metrics", "identify"), "estimators"),
    **dict.fromkeys(("Preprocessing", "Processed", "preprocess"), "preprocessing"),
    **dict.fromkeys(("identify_logs",), "logs"),
    **dict.fromkeys(("LogResult",), "results"),
    **dict.fromkeys(("PayloadResult", "identify_payload"), "payload"),
    **dict.fromkeys(("Trajectory", "from_arrays", "from_dataframe", "parse_column_map", "read_trajectory"),
                    "trajectory"),
    "write_trajectory": "writers",
    **dict.fromkeys(("FloatingIdentification", "identify_floating"), "floating"),
    **dict.fromkeys(("DelayEstimate", "estimate_delay"), "delay"),
    **dict.fromkeys(("ControllerGains", "controller_gains"), "drive_gains"),
    **dict.fromkeys(("plot_parameters", "plot_residuals", "plot_torques", "time_axis"), "plots"),
}

__all__ = ["BaseParameterEstimator", "ControllerGains", "DelayEstimate", "FloatingIdentification", "Identification",
           "LogResult", "Metrics", "PayloadResult", "Preprocessing", "Processed", "Trajectory", "controller_gains",
           "estimate_delay", "from_arrays", "from_dataframe", "identify", "identify_floating", "identify_logs",
           "identify_payload", "parse_column_map", "plot_parameters", "plot_residuals", "plot_torques", "preprocess",
           "read_trajectory", "time_axis", "write_trajectory"]


__getattr__, __dir__ = lazy_names(__name__, _WHERE, __all__)
