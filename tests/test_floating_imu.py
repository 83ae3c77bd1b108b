"""A floating base from an IMU (sensor_msgs/Imu) instead of odometry (issue 27, the legged robots' usual log).

Checked against pinocchio, independently of baseparam's dynamics: the fact the reader rests on (the base wrench
and joint torques see the base's linear velocity only through the classical acceleration of its origin, so an
IMU's specific force stands in for the unknown position and velocity), the base columns built from an IMU's
readings (pinocchio's frame kinematics give the readings, its rnea the torques), and the fit from an IMU bag
against the fit from odometry of the same simulated experiment.
"""
from __future__ import annotations

import dataclasses
import re
import types

import numpy as np
import pytest

import baseparam as bp
from baseparam.identification.imu import ImuTrajectory

pin = pytest.importorskip("pinocchio")

from test_floating_identification import needs_solo  # noqa: E402


def random_state(model, rng):
    q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
    return q, rng.normal(size=model.nv), rng.normal(size=model.nv)


def test_torques_see_the_base_velocity_only_through_the_origin_acceleration():
    """With a free-flyer root, rnea(q, v, a) is unchanged when the base's linear velocity is set to zero and the
    linear part of its acceleration replaced by the classical acceleration of the origin in base axes,
    Rᵀ p̈ = a_lin + ω × v_lin (Galilean invariance: no force depends on a uniform velocity); and with the IMU's
    specific force a_imu = Rᵀ(p̈ − g) in place of Rᵀ p̈ and gravity off, whatever the base's orientation and
    position (gravity enters rnea as an acceleration −g of the base: only Rᵀ(p̈ − g) is seen)."""
    model = pin.buildSampleModelHumanoidRandom()
    data = pin.Data(model)
    free = model.copy()
    free.gravity = pin.Motion.Zero()
    free_data = pin.Data(free)
    rng = np.random.default_rng(0)
    for _ in range(20):
        q, v, a = random_state(model, rng)
        R = pin.Quaternion(q[3:7]).toRotationMatrix()
        g = model.gravity.linear
        tau = pin.rnea(model, data, q, v, a).copy()
        classical = a[:3] + np.cross(v[3:6], v[:3])                     # Rᵀ p̈
        v0, a0 = v.copy(), a.copy()
        v0[:3], a0[:3] = 0.0, classical
        np.testing.assert_allclose(pin.rnea(model, data, q, v0, a0), tau, rtol=0, atol=1e-9 * np.abs(tau).max())
        # the specific force: no gravity, any base pose
        a_imu = classical - R.T @ g
        q1 = q.copy()
        q1[:3] = rng.normal(size=3)
        q1[3:7] = pin.Quaternion(pin.exp3(rng.normal(size=3))).coeffs()
        a1 = a0.copy()
        a1[:3] = a_imu
        np.testing.assert_allclose(pin.rnea(free, free_data, q1, v0, a1), tau, rtol=0, atol=1e-9 * np.abs(tau).max())
        # but not the linear velocity with the acceleration left as it was: the fact is not vacuous
        assert np.abs(pin.rnea(model, data, q, v0, a) - tau).max() > 1e-3 * np.abs(tau).max()


# -- the base columns from an IMU's readings, against pinocchio ------------------------------------------------------
IMU_XYZ, IMU_RPY = (0.093, -0.041, 0.027), (0.4, -0.3, 2.1)


@pytest.fixture(scope="module")
def solo_imu(tmp_path_factory):
    """solo12's URDF with an ``imu_link`` fixed to its base link at a lever arm and turned (as boards are
    mounted), read by baseparam (floating root) and by pinocchio (free-flyer; the fixed link is a frame of its own,
    placed by pinocchio's URDF parser)."""
    import warnings

    import baseparam as bp
    from test_floating_identification import SOLO
    text = open(SOLO, encoding="utf-8").read()
    imu = (f'<link name="imu_link"/><joint name="imu_joint" type="fixed"><parent link="base_link"/>'
           f'<child link="imu_link"/><origin xyz="{" ".join(map(str, IMU_XYZ))}" rpy="{" ".join(map(str, IMU_RPY))}"/>'
           '</joint>')
    end = text.rindex("</robot>")
    text = text[:end] + imu + text[end:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # the URDF's tiny round-offs
        path = tmp_path_factory.mktemp("imu") / "solo12_imu.urdf"
        path.write_text(text, encoding="utf-8")
        robot = bp.load_robot(path, floating=True)
    model = pin.buildModelFromXML(text, pin.JointModelFreeFlyer())
    model.gravity = pin.Motion(np.asarray(robot.gravity_si, float), np.zeros(3))
    names = list(model.names)
    ids = [names.index(j.name) for j in robot.joints]
    rows = np.r_[np.arange(6), [model.joints[i].idx_v for i in ids]]      # our v in pinocchio's
    cols = np.r_[np.arange(7), [model.joints[i].idx_q for i in ids]]
    return robot, model, rows, cols, path


def imu_readings(model, data, frame, q, v, a):
    """What an ideal IMU on ``frame`` reads at a state: its orientation (x, y, z, w), rate and specific force in its
    own axes, and its ω̇ (pinocchio's frame kinematics)."""
    pin.forwardKinematics(model, data, q, v, a)
    pin.updateFramePlacements(model, data)
    R = data.oMf[frame].rotation
    velocity = pin.getFrameVelocity(model, data, frame, pin.LOCAL)
    acceleration = pin.getFrameClassicalAcceleration(model, data, frame, pin.LOCAL)
    specific = acceleration.linear - R.T @ model.gravity.linear
    return (pin.Quaternion(R).coeffs().copy(), velocity.angular.copy(), specific,
            pin.getFrameAcceleration(model, data, frame, pin.LOCAL).angular.copy())


@needs_solo
def test_imu_mounting_is_pinocchios_frame(solo_imu):
    from baseparam.identification.imu import imu_mounting
    robot, model, _, _, _ = solo_imu
    data = model.createData()
    pin.framesForwardKinematics(model, data, pin.neutral(model))
    placement = data.oMf[model.getFrameId("imu_link")]
    r, R = imu_mounting(robot, "imu_link")
    np.testing.assert_allclose(r, placement.translation, rtol=0, atol=1e-15)
    np.testing.assert_allclose(R, placement.rotation, rtol=0, atol=1e-15)
    r0, R0 = imu_mounting(robot, "base_link")
    assert not r0.any() and np.array_equal(R0, np.eye(3))


@needs_solo
@pytest.mark.parametrize("orientation", [True, False])
def test_base_columns_from_imu_readings_give_pinocchios_torques(solo_imu, orientation):
    """Random states of solo12: the readings of an IMU on a lever arm (pinocchio), turned into the base columns
    (base_from_imu, with the exact ω̇ and with none: the identity orientation), give with baseparam's inverse
    dynamics the 6 + n generalized forces of pinocchio's rnea on the true state, to 1e-9."""
    import baseparam as bp
    from baseparam.identification.imu import base_from_imu, imu_mounting
    robot, model, rows, cols, _ = solo_imu
    data = model.createData()
    frame = model.getFrameId("imu_link")
    rng = np.random.default_rng(3)
    S = 12
    states = [random_state(model, rng) for _ in range(S)]
    readings = [imu_readings(model, data, frame, *s) for s in states]
    quat, omega, specific, omega_dot = (np.array(x) for x in zip(*readings))
    r, R = imu_mounting(robot, "imu_link")
    qb, qdb, qddb = base_from_imu(np.arange(S, dtype=float), quat if orientation else None, omega, specific,
                                  gravity=robot.gravity_si, position=r, rotation=R, angular_acceleration=omega_dot)
    assert not qb[:, :3].any() and not qdb[:, :3].any()
    joints = lambda x, idx: np.array([s[idx] for s in x])             # noqa: E731
    q = np.hstack([qb, joints([s[0] for s in states], cols[7:])])
    qd = np.hstack([qdb, joints([s[1] for s in states], rows[6:])])
    qdd = np.hstack([qddb, joints([s[2] for s in states], rows[6:])])
    if orientation:      # the base's own orientation, recovered through the mounting
        for s in range(S):
            truth = pin.Quaternion(states[s][0][3:7]).toRotationMatrix()
            got = pin.Quaternion(qb[s, 3:7]).toRotationMatrix()
            np.testing.assert_allclose(got, truth, rtol=0, atol=1e-12)
    tau = bp.inverse_dynamics(bp.Model(robot), q, qd, qdd)
    # and the joints' reaction wrenches (internal forces, blind to a uniform velocity too): pinocchio's data.f, the
    # wrench each joint transmits to its child in the child's frame
    wrenches = bp.reaction_wrenches(bp.Model(robot), q, qd, qdd)
    joint_ids = [list(model.names).index(j.name) for j in robot.joints]
    for s, (qp, vp, ap) in enumerate(states):
        expected = pin.rnea(model, data, qp, vp, ap)[rows]
        np.testing.assert_allclose(tau[s], expected, rtol=0, atol=1e-9 * np.abs(expected).max())
        f = np.array([data.f[i].vector for i in joint_ids])
        np.testing.assert_allclose(wrenches[s], f, rtol=0, atol=1e-9 * np.abs(f).max())


# -- solo12 standing and swaying (test_floating_identification's stance experiment), its base from an IMU ------------
# A MEMS IMU's white noise (a Bosch BMI088's datasheet densities, 0.014 °/s/√Hz and 175 µg/√Hz, over a 1 kHz
# sensor's 500 Hz band), taken per logged sample without averaging: rate 0.005 rad/s, specific force 0.04 m/s²; the
# orientation of its filter 0.005 rad per axis.
GYRO_NOISE, ACCEL_NOISE, ORIENTATION_NOISE = 0.005, 0.04, 0.005


def stance_imu(solo_imu, seed=None):
    """The stance experiment's exact IMU readings on imu_link (pinocchio, from the true base motion), with ω̇; with
    ``seed`` the readings noisy as above (ω̇ then left to the reader)."""
    from test_floating_identification import stance_experiment
    _, model, rows, cols, _ = solo_imu
    data = model.createData()
    frame = model.getFrameId("imu_link")
    _, _, (q, qd, qdd), _ = stance_experiment()
    states = []
    for s in range(len(q)):
        qp, vp, ap = np.empty(model.nq), np.empty(model.nv), np.empty(model.nv)
        qp[cols], vp[rows], ap[rows] = q[s], qd[s], qdd[s]
        states.append(imu_readings(model, data, frame, qp, vp, ap))
    quat, omega, specific, omega_dot = (np.array(x) for x in zip(*states))
    if seed is not None:
        rng = np.random.default_rng(seed)
        tilt = np.array([pin.Quaternion(pin.exp3(v)).coeffs() for v in rng.normal(scale=ORIENTATION_NOISE,
                                                                                    size=(len(q), 3))])
        from baseparam.identification.imu import _product
        quat = _product(quat, tilt)
        omega = omega + rng.normal(scale=GYRO_NOISE, size=omega.shape)
        specific = specific + rng.normal(scale=ACCEL_NOISE, size=specific.shape)
        omega_dot = None
    return quat, omega, specific, omega_dot


def imu_bag(path, robot, log, imu, wrenches, contacts, wrench_frame=None, storage="mcap", oriented=True,
            imu_times=None, unmeasured=(), imu_frame_id="imu_link"):
    """The stance log as a ROS bag written by rosbags (not baseparam; ``storage`` mcap, sqlite3 or ros1):
    JointState on /joint_states, the IMU's sensor_msgs/Imu on /imu (frame ``imu_frame_id``; without its orientation when
    not ``oriented``, as ROS says: covariance[0] = -1; at ``imu_times`` when given, else the joints'), a
    WrenchStamped per foot on /<name>/wrench in the foot's own frame (``wrench_frame`` instead: e.g. 'world', a
    force plate's); the fields in ``unmeasured`` ('angular_velocity', 'linear_acceleration') zero, their covariance[0]
    -1 (ROS: not measured)."""
    from rosbags.typesys import Stores, get_typestore

    from baseparam.identification.trajectory import robot_joint_names
    ros1 = storage == "ros1"
    ts = get_typestore(Stores.ROS1_NOETIC if ros1 else Stores.ROS2_HUMBLE)
    serialize = ts.serialize_ros1 if ros1 else ts.serialize_cdr
    T = ts.types
    names = robot_joint_names(robot)
    quat, omega, specific, _ = imu
    if ros1:
        from rosbags.rosbag1 import Writer
        writer = Writer(path)
    else:
        from rosbags.rosbag2 import StoragePlugin, Writer
        writer = Writer(path, version=9, storage_plugin=getattr(StoragePlugin, storage.upper()))

    def vec(v):
        return T["geometry_msgs/msg/Vector3"](x=float(v[0]), y=float(v[1]), z=float(v[2]))

    def header(tk, frame):
        ns = int(round(tk * 1e9))
        stamp = T["builtin_interfaces/msg/Time"](sec=ns // 10**9, nanosec=ns % 10**9)
        return ns, (T["std_msgs/msg/Header"](seq=0, stamp=stamp, frame_id=frame) if ros1 else
                    T["std_msgs/msg/Header"](stamp=stamp, frame_id=frame))

    def covariance(sigma, field=None):
        if field in unmeasured:
            return np.r_[-1.0, np.zeros(8)]
        return np.diag(np.full(3, sigma ** 2)).ravel()

    with writer:
        js = writer.add_connection("/joint_states", "sensor_msgs/msg/JointState", typestore=ts)
        base = writer.add_connection("/imu", "sensor_msgs/msg/Imu", typestore=ts)
        feet = [writer.add_connection(f"/{c.name}/wrench", "geometry_msgs/msg/WrenchStamped", typestore=ts)
                for c in contacts]
        for k, tk in enumerate(log.t):
            ns, h = header(tk, "")
            msg = T["sensor_msgs/msg/JointState"](header=h, name=names, position=log.q[k, 7:],
                                                  velocity=log.qd[k, 6:], effort=log.tau[k, 6:])
            writer.write(js, ns, serialize(msg, "sensor_msgs/msg/JointState"))
            for c, (contact, conn) in enumerate(zip(contacts, feet)):
                ns, h = header(tk, wrench_frame or f"{contact.name}_FOOT")
                msg = T["geometry_msgs/msg/WrenchStamped"](header=h, wrench=T["geometry_msgs/msg/Wrench"](
                    force=vec(wrenches[k, c, :3]), torque=vec(wrenches[k, c, 3:])))
                writer.write(conn, ns, serialize(msg, "geometry_msgs/msg/WrenchStamped"))
        for k, tk in enumerate(log.t if imu_times is None else imu_times):
            ns, h = header(tk, imu_frame_id)
            given = oriented(k) if callable(oriented) else oriented        # per message, when a function
            x, y, z, w = map(float, quat[k]) if given else (0.0, 0.0, 0.0, 0.0)
            orientation_cov = covariance(ORIENTATION_NOISE) if given else np.r_[-1.0, np.zeros(8)]
            if given == "zeros":          # unset without ROS's -1, as some ROS 1 drivers leave it
                x, y, z, w = 0.0, 0.0, 0.0, 0.0
            if given == "nan":            # ROS's -1, the values NaN (to be disregarded, whatever they hold)
                x, y, z, w = (float("nan"),) * 4
                orientation_cov = np.r_[-1.0, np.zeros(8)]
            msg = T["sensor_msgs/msg/Imu"](
                header=h, orientation=T["geometry_msgs/msg/Quaternion"](x=x, y=y, z=z, w=w),
                orientation_covariance=orientation_cov,
                angular_velocity=vec(0 * omega[k] if "angular_velocity" in unmeasured else omega[k]),
                angular_velocity_covariance=covariance(GYRO_NOISE, "angular_velocity"),
                linear_acceleration=vec(0 * specific[k] if "linear_acceleration" in unmeasured else specific[k]),
                linear_acceleration_covariance=covariance(ACCEL_NOISE, "linear_acceleration"))
            writer.write(base, ns, serialize(msg, "sensor_msgs/msg/Imu"))
    return path


@needs_solo
def test_exact_imu_gives_the_odometry_fit(solo_imu):
    """Exact simulated readings (ω̇ too) of an IMU on a lever arm, turned into the base columns: the torques and base
    routes give the fit of the same experiment with the exact base pose, twist and acceleration (odometry), to 1e-9
    relative."""
    from baseparam.identification.floating import identify_floating
    from baseparam.identification.imu import ImuTrajectory, base_from_imu, imu_mounting
    from test_floating_identification import stance_experiment
    robot = solo_imu[0]
    _, contacts, _, ex = stance_experiment()
    quat, omega, specific, omega_dot = stance_imu(solo_imu)
    r, R = imu_mounting(robot, "imu_link")
    qb, qdb, qddb = base_from_imu(ex.log.t, quat, omega, specific, gravity=robot.gravity_si, position=r, rotation=R,
                                  angular_acceleration=omega_dot)
    log = ex.log
    imu_log = ImuTrajectory(t=log.t, q=np.hstack([qb, log.q[:, 7:]]), qd=np.hstack([qdb, log.qd[:, 6:]]),
                            qdd=np.hstack([qddb, log.qdd[:, 6:]]), tau=log.tau, floating=True)
    for route in ("torques", "base"):
        odometry = identify_floating(robot, log, route=route, contacts=contacts, wrenches=ex.wrenches)
        imu = identify_floating(robot, imu_log, route=route, contacts=contacts, wrenches=ex.wrenches)
        scale = np.abs(odometry.values).max()
        np.testing.assert_allclose(imu.values, odometry.values, rtol=0, atol=1e-9 * scale)
        np.testing.assert_allclose(imu.std, odometry.std, rtol=1e-6, atol=1e-9 * odometry.std.max())
    with pytest.raises(bp.errors.SettingsError, match="IMU.*momentum route"):
        identify_floating(robot, imu_log, route="momentum", known={"mass": 2.5})


@needs_solo
def test_noisy_imu_bag_identified_within_reach_of_the_truth(solo_imu, tmp_path):
    """The stance experiment logged as a real robot logs it — joints, a noisy IMU on a lever arm, the feet's F/T
    sensors — in a bag: `identify --base-topic /imu --imu-frame imu_link` (the library's fit on the read log, to
    1e-10) sees every combination within reach of the truth (Bonferroni max |z|, χ²-calibrated σ), as the exact
    base pose (odometry) does."""
    import json

    from baseparam.cli import main
    from click.testing import CliRunner
    from test_floating_identification import assert_within, stance_experiment
    robot = solo_imu[0]
    _, contacts, _, ex = stance_experiment()
    imu = stance_imu(solo_imu, seed=11)
    bag = imu_bag(tmp_path / "imu_bag", robot, ex.log, imu, ex.wrenches, contacts)
    back = bp.read_trajectory(bag, robot=robot, contacts=contacts, base_topic="/imu", imu_frame="imu_link")
    assert isinstance(back, ImuTrajectory) and back.n_samples == ex.log.n_samples
    assert any("base from the IMU on /imu" in note for note in back.notes)
    np.testing.assert_array_equal(back.wrenches, ex.wrenches)
    lines = [f"  - {{link: {c.link}, xyz: [{', '.join(repr(x) for x in c.position)}], name: {c.name}}}"
             for c in contacts]
    (tmp_path / "feet.yaml").write_text("contacts:\n" + "\n".join(lines) + "\n")
    urdf = solo_imu[4]
    for route in ("torques", "base"):
        fit = bp.identify_floating(robot, back, route=route, contacts=contacts)
        assert_within(fit, ex.parameters)
        assert_within(bp.identify_floating(robot, ex.log, route=route, contacts=contacts, wrenches=ex.wrenches),
                      ex.parameters)
        out = tmp_path / "out.json"
        result = CliRunner().invoke(main, ["identify", str(urdf), str(bag), "--floating", "--route", route,
                                           "--contacts", str(tmp_path / "feet.yaml"), "--base-topic", "/imu",
                                           "--imu-frame", "imu_link", "--json", str(out)])
        assert result.exit_code == 0, result.output
        assert "base from the IMU on /imu" in result.output
        values = np.array([c["value"] for c in json.loads(out.read_text())["combinations"]])
        np.testing.assert_allclose(values, fit.values, rtol=1e-10, atol=1e-10 * np.abs(fit.values).max())


@needs_solo
def test_what_an_imu_base_cannot_do_refused_in_one_line(solo_imu, tmp_path):
    """Force-plate wrenches in the world frame (they need the base position), an IMU link a joint moves or that does
    not exist, imu_frame without an IMU topic or outside a bag: one line each, naming the file or the option; the
    CLI exits with status 2."""
    from baseparam.cli import main
    from click.testing import CliRunner
    from test_floating_identification import stance_experiment
    robot, urdf = solo_imu[0], solo_imu[4]
    _, contacts, _, ex = stance_experiment()
    log = ex.log
    short = types.SimpleNamespace(**{k: getattr(log, k)[:40] for k in ("t", "q", "qd", "tau")})    # enough here
    imu = tuple(None if x is None else x[:40] for x in stance_imu(solo_imu))
    wrenches = ex.wrenches[:40]
    world = imu_bag(tmp_path / "plates", robot, short, imu, wrenches, contacts, wrench_frame="world")
    with pytest.raises(bp.errors.DataError, match=r"plates: topic /FL/wrench: message 0: a wrench in the world frame "
                                                  r"'world' \(a force plate's\) needs the base position.*F/T"):
        bp.read_trajectory(world, robot=robot, contacts=contacts, base_topic="/imu")
    good = imu_bag(tmp_path / "feet", robot, short, imu, wrenches, contacts)
    for frame, words in (("FL_LOWER_LEG", "not fixed to the base link 'base_link' (joint 'FL_KFE' moves it)"),
                         ("no_such_link", "no such link")):
        with pytest.raises(bp.errors.SettingsError, match=f"imu_frame='{frame}': {re.escape(words)}"):
            bp.read_trajectory(good, robot=robot, contacts=contacts, base_topic="/imu", imu_frame=frame)
    from baseparam.identification.trajectory import robot_joint_names
    odometry = bp.write_trajectory(dataclasses.replace(log, joint_names=tuple(robot_joint_names(robot))),
                                   tmp_path / "odometry.mcap")
    with pytest.raises(bp.errors.DataError, match="imu_frame='imu_link' places an IMU; base topic /odom is a "
                                                  "nav_msgs/Odometry"):
        bp.read_trajectory(odometry, robot=robot, imu_frame="imu_link")
    npz = bp.write_trajectory(log, tmp_path / "log.npz")
    with pytest.raises(bp.errors.DataError, match=r"imu_frame='imu_link' applies to ROS bags, not \.npz"):
        bp.read_trajectory(npz, robot=robot, imu_frame="imu_link")
    with pytest.raises(bp.errors.DataError, match="imu_frame= read floating-base logs"):
        bp.read_trajectory(bp.write_trajectory(bp.from_arrays(short.t, short.q[:, 7:], short.tau[:, 6:]),
                                               tmp_path / "fixed.npz"), imu_frame="imu_link")
    (tmp_path / "feet.yaml").write_text("contacts:\n" + "\n".join(
        f"  - {{link: {c.link}, xyz: [{', '.join(repr(x) for x in c.position)}], name: {c.name}}}" for c in contacts))
    feet = ["--contacts", str(tmp_path / "feet.yaml")]
    for bag, extra, words in ((world, ["--route", "torques", *feet], "a wrench in the world frame 'world'"),
                              (good, ["--route", "torques", *feet, "--imu-frame", "FL_LOWER_LEG"],
                               "--imu-frame FL_LOWER_LEG: not fixed to the base link"),
                              (good, ["--route", "momentum"], "the base comes from an IMU")):
        result = CliRunner().invoke(main, ["identify", str(urdf), str(bag), "--floating", "--base-topic", "/imu",
                                           *extra])
        # the reader's notes (printed as it goes) and then the error, one line
        assert result.exit_code == 2 and "Traceback" not in result.output, result.output
        assert words in result.output.splitlines()[-1], result.output


@needs_solo
def test_imu_bags_of_every_storage_and_without_orientation(solo_imu, tmp_path):
    """The same IMU messages in a ROS 2 MCAP, a ROS 2 sqlite3 folder and a ROS 1 .bag read to the same motion, bit
    for bit; an IMU that gives no orientation (ROS: covariance[0] = -1) reads with the identity and gives the same
    fit to 1e-9 (the torques see the specific force alone); readings at other times than the joints' are
    interpolated at the joint times, with a note."""
    from test_floating_identification import stance_experiment
    robot = solo_imu[0]
    _, contacts, _, ex = stance_experiment()
    imu = stance_imu(solo_imu, seed=11)
    read = {}
    for storage in ("mcap", "sqlite3", "ros1"):
        bag = imu_bag(tmp_path / ("bag.bag" if storage == "ros1" else storage), robot, ex.log, imu, ex.wrenches,
                      contacts, storage=storage)
        read[storage] = bp.read_trajectory(bag, robot=robot, contacts=contacts, base_topic="/imu",
                                           imu_frame="imu_link")
    # low-passed (--cutoff) it stays a motion whose base came from an IMU, which the momentum route refuses
    from baseparam.identification.floating_logs import lowpass_floating
    assert isinstance(lowpass_floating(read["mcap"], 5.0), ImuTrajectory)
    for storage in ("sqlite3", "ros1"):
        for field in ("t", "q", "qd", "qdd", "tau", "wrenches"):
            np.testing.assert_array_equal(getattr(read[storage], field), getattr(read["mcap"], field),
                                          err_msg=(storage, field))
    blind = bp.read_trajectory(imu_bag(tmp_path / "blind", robot, ex.log, imu, ex.wrenches, contacts, oriented=False),
                               robot=robot, contacts=contacts, base_topic="/imu", imu_frame="imu_link")
    assert np.array_equal(blind.q[:, 3:7], np.tile([0.0, 0.0, 0.0, 1.0], (blind.n_samples, 1)))
    assert any("no orientation given" in note for note in blind.notes)
    zeros = bp.read_trajectory(imu_bag(tmp_path / "zeros", robot, ex.log, imu, ex.wrenches, contacts,
                                       oriented="zeros"), robot=robot, contacts=contacts, base_topic="/imu",
                               imu_frame="imu_link")
    for field in ("q", "qd", "qdd", "tau", "wrenches"):            # an all-zero quaternion: no orientation either
        np.testing.assert_array_equal(getattr(zeros, field), getattr(blind, field), err_msg=field)
    assert any("no orientation given" in note for note in zeros.notes)
    nan = bp.read_trajectory(imu_bag(tmp_path / "nan", robot, ex.log, imu, ex.wrenches, contacts, oriented="nan"),
                             robot=robot, contacts=contacts, base_topic="/imu", imu_frame="imu_link")
    for field in ("q", "qd", "qdd", "tau", "wrenches"):            # NaN under the -1: disregarded, not refused
        np.testing.assert_array_equal(getattr(nan, field), getattr(blind, field), err_msg=field)
    # an orientation only from the 6th message on (a filter converging): left out, not refused
    late = bp.read_trajectory(imu_bag(tmp_path / "converging", robot, ex.log, imu, ex.wrenches, contacts,
                                      oriented=lambda k: k >= 5), robot=robot, contacts=contacts, base_topic="/imu",
                              imu_frame="imu_link")
    for field in ("q", "qd", "qdd", "tau", "wrenches"):
        np.testing.assert_array_equal(getattr(late, field), getattr(blind, field), err_msg=field)
    assert any(f"no orientation in 5 of {ex.log.n_samples} messages" in note for note in late.notes)
    for route in ("torques", "base"):
        fit = bp.identify_floating(robot, blind, route=route, contacts=contacts)
        same = bp.identify_floating(robot, read["mcap"], route=route, contacts=contacts)
        np.testing.assert_allclose(fit.values, same.values, rtol=0, atol=1e-9 * np.abs(same.values).max())
    # the IMU half a step late: each joint time between two readings, interpolated (the first sample dropped)
    late = ex.log.t + 0.5 * (ex.log.t[1] - ex.log.t[0])
    shifted = bp.read_trajectory(imu_bag(tmp_path / "late", robot, ex.log, imu, ex.wrenches, contacts,
                                         imu_times=late), robot=robot, contacts=contacts, base_topic="/imu")
    assert shifted.n_samples == ex.log.n_samples - 1
    assert any("IMU topic /imu linearly interpolated" in note for note in shifted.notes)
    # ω midway between two readings, in frame-0 axes: the IMU on imu_link, its messages' header.frame_id (no
    # imu_frame given)
    from baseparam.identification.imu import imu_mounting
    assert any("base from the IMU on /imu ('imu_link' at" in note for note in shifted.notes)
    halfway = 0.5 * (imu[1][:-1] + imu[1][1:]) @ imu_mounting(robot, "imu_link")[1].T
    np.testing.assert_allclose(shifted.qd[:, 3:6], halfway, rtol=0, atol=1e-12)


@needs_solo
def test_world_frames_after_a_tf_prefix_and_a_link_so_named(solo_imu, tmp_path):
    """With an IMU base, a wrench in a world frame named after a tf prefix (``robot1/odom``) is refused as ``odom``
    is; a link of the robot named ``world`` (a URDF whose root link 'world' is fixed to base_link, read with
    floating=True: 'world' is then the base) is the robot's frame, and its wrenches are read as the same bag's in
    the feet's frames are."""
    import warnings

    from test_floating_identification import stance_experiment
    robot, urdf = solo_imu[0], solo_imu[4]
    _, contacts, _, ex = stance_experiment()
    short = types.SimpleNamespace(**{k: getattr(ex.log, k)[:40] for k in ("t", "q", "qd", "tau")})
    imu = tuple(None if x is None else x[:40] for x in stance_imu(solo_imu))
    prefixed = imu_bag(tmp_path / "prefixed", robot, short, imu, ex.wrenches[:40], contacts,
                       wrench_frame="/robot1/odom")
    with pytest.raises(bp.errors.DataError, match=r"a wrench in the world frame '/robot1/odom' \(a force plate's\)"):
        bp.read_trajectory(prefixed, robot=robot, contacts=contacts, base_topic="/imu")
    text = open(urdf, encoding="utf-8").read()
    start = text.index(">", text.index("<robot")) + 1
    text = (text[:start] + '<link name="world"/><joint name="world_joint" type="fixed"><parent link="world"/>'
            '<child link="base_link"/></joint>' + text[start:])
    (tmp_path / "rooted.urdf").write_text(text, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rooted = bp.load_robot(tmp_path / "rooted.urdf", floating=True)
    named = imu_bag(tmp_path / "named", rooted, short, imu, ex.wrenches[:40], contacts, wrench_frame="world")
    feet = imu_bag(tmp_path / "feet", rooted, short, imu, ex.wrenches[:40], contacts)
    a, b = (bp.read_trajectory(bag, robot=rooted, contacts=contacts, base_topic="/imu", imu_frame="imu_link")
            for bag in (named, feet))
    for field in ("q", "qd", "qdd", "tau", "wrenches"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)
    with pytest.raises(bp.errors.DataError, match="a wrench in the world frame 'world'"):     # solo12's own: none
        bp.read_trajectory(named, robot=robot, contacts=contacts, base_topic="/imu")


@needs_solo
def test_imu_link_from_the_messages_frame_id(solo_imu, tmp_path):
    """Without imu_frame, the IMU sits where its messages' header.frame_id says (ROS: the readings are in that
    frame): a link of the robot's URDF is taken as imu_frame would be (before, the base frame was taken: a turned
    IMU's rates in the wrong axes, silently); a frame naming no link leaves the IMU at the base frame with a note;
    one a joint moves is refused in one line."""
    from test_floating_identification import stance_experiment
    robot = solo_imu[0]
    _, contacts, _, ex = stance_experiment()
    short = types.SimpleNamespace(**{k: getattr(ex.log, k)[:40] for k in ("t", "q", "qd", "tau")})
    imu = tuple(None if x is None else x[:40] for x in stance_imu(solo_imu))

    def read(frame_id, **options):
        bag = imu_bag(tmp_path / f"{frame_id}{len(options)}", robot, short, imu, ex.wrenches[:40], contacts,
                      imu_frame_id=frame_id)
        return bp.read_trajectory(bag, robot=robot, contacts=contacts, base_topic="/imu", **options)

    told, found = read("imu_link", imu_frame="imu_link"), read("imu_link")
    at_base, unknown = read("imu", imu_frame="base_link"), read("imu")
    for field in ("q", "qd", "qdd"):
        np.testing.assert_array_equal(getattr(found, field), getattr(told, field), err_msg=field)
        np.testing.assert_array_equal(getattr(unknown, field), getattr(at_base, field), err_msg=field)
    assert np.abs(found.qd[:, 3:6] - unknown.qd[:, 3:6]).max() > 0.1 * np.abs(found.qd[:, 3:6]).max()
    assert any("header.frame_id 'imu' names no link of the robot: the IMU taken at the base frame" in note
               for note in unknown.notes)
    with pytest.raises(bp.errors.DataError, match=r"topic /imu: header.frame_id 'FL_LOWER_LEG': not fixed to the "
                                                  r"base link 'base_link' \(joint 'FL_KFE' moves it\)"):
        read("FL_LOWER_LEG")


@needs_solo
def test_fixed_base_fits_refuse_a_floating_motion_in_one_line(solo_imu, tmp_path):
    """identify, the estimator and identify_payload (torques, still poses, wrench) given a floating motion (an
    IMU's, or odometry's): one line naming the log, not numpy's broadcast error or a payload from the base's
    columns."""
    from test_floating_identification import stance_experiment
    robot = solo_imu[0]
    _, contacts, _, ex = stance_experiment()
    imu = stance_imu(solo_imu)
    motion = bp.read_trajectory(imu_bag(tmp_path / "bag", robot, ex.log, imu, ex.wrenches, contacts), robot=robot,
                                contacts=contacts, base_topic="/imu")
    calls = [lambda m: bp.identify(robot, m), lambda m: bp.BaseParameterEstimator(robot).fit(m)]
    payload = [lambda m: bp.identify_payload(robot, m), lambda m: bp.identify_payload(robot, m, static=True),
               lambda m: bp.identify_payload(robot, m, wrench=np.zeros((m.n_samples, 6)))]
    for m in (motion, ex.log):
        for call in calls:
            with pytest.raises(bp.errors.DataError, match=r"a floating-base motion \(floating=True: q starts with the "
                                                          r"base pose\); \w+: fixed-base robots' motions only") as info:
                call(m)
            assert "\n" not in str(info.value) and str(info.value).startswith(m.source)
        for call in payload:             # the payload refuses the floating robot itself first, in one line
            with pytest.raises(bp.errors.ArgumentError, match=r"has a floating base .*fixed-base robots only") as info:
                call(m)
            assert "\n" not in str(info.value)


@needs_solo
def test_an_imu_without_rate_or_specific_force_refused(solo_imu, tmp_path):
    """ROS's Imu says a reading is not measured by covariance[0] = -1 (its values then zero, or anything): a base
    built from such zeros would be at rest (no rate, the specific force zero: in free fall) and the fit silently
    wrong; the bag is refused in one line naming the topic, the message and the field, and the CLI exits with 2."""
    from baseparam.cli import main
    from click.testing import CliRunner
    from test_floating_identification import stance_experiment
    robot, urdf = solo_imu[0], solo_imu[4]
    _, contacts, _, ex = stance_experiment()
    short = types.SimpleNamespace(**{k: getattr(ex.log, k)[:40] for k in ("t", "q", "qd", "tau")})
    imu = tuple(None if x is None else x[:40] for x in stance_imu(solo_imu))
    for field in ("angular_velocity", "linear_acceleration"):
        bag = imu_bag(tmp_path / field, robot, short, imu, ex.wrenches[:40], contacts, unmeasured=(field,))
        words = (f"{field}: topic /imu: message 0: {field}_covariance[0] = -1 (ROS: no {field} measured); the base "
                 "from an IMU needs its rate and specific force")
        with pytest.raises(bp.errors.DataError, match=re.escape(words)):
            bp.read_trajectory(bag, robot=robot, contacts=contacts, base_topic="/imu")
        result = CliRunner().invoke(main, ["identify", str(urdf), str(bag), "--floating", "--route", "base",
                                           "--base-topic", "/imu"])
        assert result.exit_code == 2 and "Traceback" not in result.output, result.output
        assert words in result.output.splitlines()[-1], result.output


@needs_solo
def test_imu_motion_not_written_to_a_file(solo_imu, tmp_path):
    """An ImuTrajectory's zero base position and linear velocity stand for what the IMU does not measure; no format
    marks them, so written and read back they passed for a measured pose and twist, which the momentum route took
    (a homogeneous fit of zeros). The writers refuse it in one line, and leave no file; the odometry log they
    write as before."""
    from baseparam.identification.floating_logs import write_floating_log
    from test_floating_identification import stance_experiment
    robot = solo_imu[0]
    _, contacts, _, ex = stance_experiment()
    imu = stance_imu(solo_imu)
    bag = imu_bag(tmp_path / "bag", robot, ex.log, imu, ex.wrenches, contacts)
    motion = bp.read_trajectory(bag, robot=robot, contacts=contacts, base_topic="/imu", imu_frame="imu_link")
    from baseparam.identification.trajectory import robot_joint_names
    named = dataclasses.replace(ex.log, joint_names=tuple(robot_joint_names(robot)))
    for ext in (".csv", ".npz", ".parquet", ".mcap"):
        path = tmp_path / f"imu{ext}"
        with pytest.raises(bp.errors.ArgumentError, match=r"trajectory: .*bag: its base comes from an IMU .*keep "
                                                          r"the bag and read it again with base_topic=") as info:
            bp.write_trajectory(motion, path)
        assert "\n" not in str(info.value) and not path.exists()
        back = bp.read_trajectory(bp.write_trajectory(named, path), robot=robot)
        assert type(back) is bp.Trajectory and np.array_equal(back.q, ex.log.q)
    with pytest.raises(bp.errors.ArgumentError, match="its base comes from an IMU"):
        write_floating_log(tmp_path / "direct.npz", motion, motion.wrenches)
    assert not (tmp_path / "direct.npz").exists()


def test_base_from_imu_refuses_bad_readings_in_one_line():
    from baseparam.identification.imu import base_from_imu, imu_mounting
    t = np.arange(5) * 0.01
    quat, omega, f = np.tile([0.0, 0.0, 0.0, 1.0], (5, 1)), np.zeros((5, 3)), np.tile([0.0, 0.0, 9.81], (5, 1))
    q, qd, qdd = base_from_imu(t, quat, omega, f)
    assert not qd.any() and not qdd.any()            # at rest: the specific force is −g, the acceleration 0
    cases = [((t[::-1], quat, omega, f), {}, "imu.bag: t: sample 1: time does not increase"),
             ((t, quat[:4], omega, f), {}, r"imu.bag: orientation: expected shape \(5, 4\), got \(4, 4\)"),
             ((t, quat * 2, omega, f), {}, "imu.bag: orientation: sample 0: norm 2; expected a unit quaternion"),
             ((t, quat, np.where(np.eye(5, 3) > 0, np.nan, omega), f), {},
              "imu.bag: angular_velocity: sample 0: not a finite number"),
             ((t, quat, omega, f), {"rotation": np.diag([1.0, 1.0, -1.0])}, "rotation: expected a 3×3 rotation")]
    for args, kwargs, words in cases:
        with pytest.raises(bp.errors.BaseParamError, match=words) as info:
            base_from_imu(*args, source="imu.bag", **kwargs)
        assert "\n" not in str(info.value)
    from test_floating_identification import SPACE
    robot = bp.load_robot(SPACE)
    assert np.array_equal(imu_mounting(robot)[1], np.eye(3))
    with pytest.raises(bp.errors.SettingsError, match="imu_frame='x': the IMU's link is found in a URDF"):
        imu_mounting(robot, "x")
