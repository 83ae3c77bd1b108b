"""Identification of the base parameters from measured motion.

``trajectory``      :func:`read_trajectory`, :func:`from_dataframe`, :func:`from_arrays`,
                    :func:`parse_column_map` — logs in, as a :class:`Trajectory` (the one motion type,
                    :mod:`baseparam.motion`'s, re-exported here)
``writers``         :func:`write_trajectory` — a trajectory out as CSV, NPZ, Parquet or MCAP
``delay``           :func:`estimate_delay` (→ :class:`DelayEstimate`) — the effort's delay behind the positions
``preprocessing``   :class:`Preprocessing`, :func:`preprocess`
``estimators``      :class:`BaseParameterEstimator`, :func:`identify`
``results``         what they return: :class:`Identification`, :class:`Metrics` (also importable from
                    ``estimators``), :class:`LogResult`
``floating``        :func:`identify_floating` (→ :class:`FloatingIdentification`) — floating-base robots
                    by joint torques and contact wrenches, the base equations alone, or momentum
``imu``             :func:`~baseparam.identification.imu.base_from_imu` — a floating base from an IMU's readings
``floating_logs``   floating-base logs and contact files (CSV, NPZ, Parquet, ROS bags), read and written
``payload``         :func:`identify_payload` (→ :class:`PayloadResult`) — a tool on the flange as one more
                    body, from joint torques; ``payload_static``: its mass and centre of mass from still
                    poses; ``payload_wrench``: from a wrist force/torque sensor; ``payload_vendors``: the
                    result in controllers' formats (UR, KUKA, Franka) and flange frames;
                    ``payload_descriptions``: the robot carrying it as YAML, URDF or MJCF
``logs``            :func:`identify_logs` — many logs, each reduced on its own (processes, Dask)
``drive_gains``     :func:`controller_gains` (→ :class:`ControllerGains`) — drive gains from the controller's
                    own torque-to-current map (a log's commanded torque and commanded current)
``plots``           figures of a fit (matplotlib, imported on first use): :func:`plot_torques` (measured
                    and predicted torque against time), :func:`plot_residuals`, :func:`plot_parameters`
                    (estimates ± 2σ); :func:`time_axis` (a :class:`Metrics`' times laid end to end,
                    with breaks where preprocessing left samples out, for figures of one's own)

Inside, the readers behind :func:`read_trajectory`: ``_text`` (CSV/TXT), ``_arrays`` (arrays, NPZ, HDF5;
``_h5_headers`` an HDF5 attribute's stored bytes), ``_frames`` (pandas), ``_parquet`` (``_parquet_pages``: what
its footer and page headers declare), ``_bags`` (ROS bags; ``_bag_files`` their raw messages, ``_mcap`` the MCAP
container, ``_cdr`` JointState's wire formats, ``_floating_bags`` a floating base's topics), ``_file_bytes`` (a
file read a window at a time); what they share: ``_record`` (field names, bounds, size limits, units),
``_columns`` and ``_names`` (columns by map and by name), ``_joint_order`` (the log's joints against the robot's),
``_rows`` (parsed rows checked into a :class:`Trajectory`); ``_log_files`` the writers' Parquet and MCAP
containers. Behind the fits: ``_inputs`` (what ``fit``/``predict``/``score`` accept), ``_least_squares``
(streamed normal equations, OLS/WLS and statistics), ``_friction`` (friction columns), ``_consistent`` (the
physically consistent fit: pseudo-inertia LMIs, CAD prior), ``_bodies`` (identified bodies beside the CAD ones),
``_echelon`` (small row echelon forms), ``_payload_math`` (a payload's 10 parameters), ``_params``
(``get_params``/``set_params``), ``_workers`` (where logs are reduced: here, worker processes, Dask).
"""
from .._lazy import lazy_names

# Names are imported on first use (PEP 562): reading a trajectory needs only numpy, while the
# estimators bring in the projection stage.
_WHERE = {
    **dict.fromkeys(("BaseParameterEstimator", "identify"), "estimators"),
    **dict.fromkeys(("Preprocessing", "Processed", "preprocess"), "preprocessing"),
    **dict.fromkeys(("identify_logs",), "logs"),
    **dict.fromkeys(("Identification", "LogResult", "Metrics"), "results"),
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
