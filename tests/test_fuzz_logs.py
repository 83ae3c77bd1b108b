"""Fuzzing the robot-log readers (issues 23 and 28): ROS 2 MCAP, ROS 1 bags and Parquet, written valid (MCAP and
Parquet by ``bp.write_trajectory``, bags by rosbags' writers, Parquet of other shapes by pyarrow) and then damaged:
cut anywhere, bytes flipped, sizes in headers made huge, values NaN or infinite, joints named twice, missing or
unprintable, stamps out of order, columns of the wrong type, messages whose arrays disagree with their names.

Every ``bp.read_trajectory`` call (with and without ``skip_bad_rows``) returns a trajectory of finite values on
strictly increasing times, or raises a :class:`BaseParamError` whose message is one line naming the file; what it
warns is one line too. ``baseparam identify`` on such files exits 0 or 2, never with a traceback. Derandomized
and bounded (about 800 cases, 10–20 s)."""
import os
import warnings

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

import baseparam as bp
from baseparam.cli import main
from baseparam.errors import BaseParamError
from conftest import ROOT

NAMES = ["joint1", "joint2", "joint3"]      # the planar arm's joints (named by their order)
S = 60
PLANAR = str(ROOT / "robots" / "planar_rrr.yaml")
FUZZ = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
FEW = settings(FUZZ, max_examples=60)


def motion():
    rng = np.random.default_rng(11)
    t = 1.0 + np.arange(S) * 0.01
    return t, rng.uniform(-1, 1, (S, 3)), rng.uniform(-1, 1, (S, 3)), rng.uniform(-5, 5, (S, 3))


def write_bag(path, kind, messages):
    """``messages`` [(ns, names, position, velocity, effort)] as a JointState topic, by rosbags: a ROS 1 bag
    (``kind`` 'ros1', ``path`` a .bag) or the .mcap file of a ROS 2 bag folder (returned)."""
    from rosbags.typesys import Stores, get_typestore
    ros1 = kind == "ros1"
    ts = get_typestore(Stores.ROS1_NOETIC if ros1 else Stores.ROS2_HUMBLE)
    msgtype = "sensor_msgs/msg/JointState"
    JointState, Header, Time = (ts.types[n] for n in (msgtype, "std_msgs/msg/Header", "builtin_interfaces/msg/Time"))
    if ros1:
        from rosbags.rosbag1 import Writer
        writer = Writer(path)
    else:
        from rosbags.rosbag2 import StoragePlugin, Writer
        writer = Writer(path, version=9, storage_plugin=StoragePlugin.MCAP)
    with writer:
        conn = writer.add_connection("/joint_states", msgtype, typestore=ts)
        for k, (ns, names, pos, vel, eff) in enumerate(messages):
            stamp = Time(sec=ns // 10**9, nanosec=ns % 10**9)
            header = Header(seq=k, stamp=stamp, frame_id="") if ros1 else Header(stamp=stamp, frame_id="")
            msg = JointState(header=header, name=list(names), position=np.asarray(pos, float),
                             velocity=np.asarray(vel, float), effort=np.asarray(eff, float))
            writer.write(conn, ns, ts.serialize_ros1(msg, msgtype) if ros1 else ts.serialize_cdr(msg, msgtype))
    if ros1:
        return path
    return path / next(name for name in os.listdir(path) if name.endswith(".mcap"))


@pytest.fixture(scope="module")
def valid(tmp_path_factory):
    """One valid log per format (its path; a path keeps hypothesis' report of a failing case short)."""
    folder = tmp_path_factory.mktemp("valid")
    t, q, qd, tau = motion()
    out = {}
    for ext in (".mcap", ".parquet"):
        bp.write_trajectory(bp.Trajectory(t, q, tau, qd), folder / f"log{ext}", joint_names=NAMES)
        out[ext] = folder / f"log{ext}"
    messages = [(int(round(t[k] * 1e9)), NAMES, q[k], qd[k], tau[k]) for k in range(S)]
    out[".bag"] = write_bag(folder / "log.bag", "ros1", messages)
    return out


def check_read(path, **options):
    """read_trajectory with and without skip_bad_rows: finite values on increasing times, or one line naming
    the file; warnings one line each. Returns what was read (None for a refusal) per setting."""
    out = []
    for skip in (False, True):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                traj = bp.read_trajectory(path, skip_bad_rows=skip, **options)
            except BaseParamError as exc:
                message = str(exc)
                assert "\n" not in message and str(path) in message, message
                traj = None
        for w in caught:
            assert "\n" not in str(w.message), str(w.message)
        if traj is not None:
            for field in ("t", "q", "qd", "qdd", "tau"):
                values = getattr(traj, field)
                assert values is None or np.isfinite(values).all(), field
            assert np.all(np.diff(traj.t) > 0) and traj.t.size >= 2
            assert all("\n" not in note for note in traj.notes)
            if "joints" in options:
                assert traj.n_dof == len(options["joints"])
        out.append(traj)
    return out


EDITS = st.lists(st.one_of(
    st.tuples(st.just("cut"), st.floats(0, 1)),
    st.tuples(st.just("flip"), st.floats(0, 1), st.integers(1, 255)),
    st.tuples(st.just("huge"), st.floats(0, 1), st.sampled_from([4, 8]),
              st.sampled_from([2**64 - 1, 2**63 - 1, 2**32 - 1, 2**31, 10**12, 0])),
    st.tuples(st.just("insert"), st.floats(0, 1), st.binary(min_size=1, max_size=16)),
), min_size=1, max_size=4)


def damage(data, edits):
    data = bytearray(data)
    for edit in edits:
        at = int(edit[1] * max(len(data) - 1, 0))
        if edit[0] == "cut":
            del data[at:]
        elif edit[0] == "flip" and data:
            data[at] ^= edit[2]
        elif edit[0] == "huge" and len(data) >= edit[2]:
            at = min(at, len(data) - edit[2])
            data[at:at + edit[2]] = (edit[3] % 2 ** (8 * edit[2])).to_bytes(edit[2], "little")
        elif edit[0] == "insert":
            data[at:at] = edit[2]
    return bytes(data)


@FUZZ
@given(ext=st.sampled_from([".mcap", ".parquet", ".bag"]), edits=EDITS)
def test_damaged_bytes(valid, tmp_path_factory, ext, edits):
    path = tmp_path_factory.mktemp("bytes") / f"damaged{ext}"
    path.write_bytes(damage(valid[ext].read_bytes(), edits))
    check_read(path, joints=NAMES)


@FUZZ
@given(ext=st.sampled_from([".mcap", ".parquet"]), field=st.sampled_from(["t", "q", "qd", "tau"]),
       row=st.integers(0, S - 1), value=st.sampled_from([np.nan, np.inf, -np.inf, 1e308, -1e308, 5e-324, 0.0]),
       names=st.sampled_from([NAMES, ["joint1", "joint1", "joint3"], ["joint1", "joint2", "gripper"],
                              ["joint3", "joint2", "joint1"], ["joint1\n", "joint2", "joint3"], ["", "", ""],
                              ["joint1", "joint2", "x" * 300]]),
       joints=st.sampled_from([NAMES, None]))
def test_damaged_values_and_names(tmp_path_factory, ext, field, row, value, names, joints):
    t, q, qd, tau = motion()
    arrays = {"t": t, "q": q, "qd": qd, "tau": tau}
    arrays[field][(row,) if field == "t" else (row, row % 3)] = value
    path = tmp_path_factory.mktemp("values") / f"log{ext}"
    try:
        bp.write_trajectory(bp.Trajectory(arrays["t"], arrays["q"], arrays["tau"], arrays["qd"]), path,
                            joint_names=names)
    except BaseParamError as exc:          # the writer may refuse it (in one line); then nothing to read
        assert "\n" not in str(exc)
        return
    check_read(path, **({} if joints is None else {"joints": joints}))


PARQUET_SHAPES = ["strings in q", "strings in t", "ragged q", "null row", "null value", "timestamps",
                  "nested lists", "integer lists", "huge integers", "booleans", "one column per joint as text"]


@FEW
@given(shape=st.sampled_from(PARQUET_SHAPES), n_dof=st.sampled_from([None, 3, 2]))
def test_parquet_of_wrong_types(tmp_path_factory, shape, n_dof):
    import pyarrow as pa
    import pyarrow.parquet as pq
    t, q, qd, tau = motion()
    cols = {"t": pa.array(t), "q": pa.array(list(q)), "qd": pa.array(list(qd)), "tau": pa.array(list(tau))}
    if shape == "strings in q":
        cols["q"] = pa.array([[f"{x}" for x in r] for r in q])
    elif shape == "strings in t":
        cols["t"] = pa.array([f"{x}" for x in t])
    elif shape == "ragged q":
        cols["q"] = pa.array([list(r[:k % 4]) for k, r in enumerate(q)])
    elif shape == "null row":
        cols["q"] = pa.array([None if k == 5 else list(r) for k, r in enumerate(q)])
    elif shape == "null value":
        cols["tau"] = pa.array([[None, 1.0, 2.0]] + [list(r) for r in tau[1:]])
    elif shape == "timestamps":
        cols["t"] = pa.array((t * 1e9).astype("int64")).cast(pa.timestamp("ns"))
    elif shape == "nested lists":
        cols["q"] = pa.array([[list(r)] for r in q])
    elif shape == "integer lists":
        cols["tau"] = pa.array([[None if k == 0 else int(x) for x in r] for k, r in enumerate(tau * 100)],
                               type=pa.list_(pa.int64()))
    elif shape == "huge integers":
        cols["q"] = pa.array([[2**62, 1, 2]] * S)
    elif shape == "booleans":
        cols["qd"] = pa.array([[True, False, True]] * S)
    else:
        cols = {"t": pa.array(t), **{f"q{j + 1}": pa.array([f"{x}" for x in q[:, j]]) for j in range(3)},
                **{f"tau{j + 1}": pa.array(tau[:, j]) for j in range(3)}}
    path = tmp_path_factory.mktemp("parquet") / "log.parquet"
    pq.write_table(pa.table(cols), path)
    check_read(path, **({} if n_dof is None else {"n_dof": n_dof}))


@FEW
@given(kind=st.sampled_from(["ros1", "mcap"]), row=st.integers(0, S - 1),
       change=st.sampled_from(["short position", "fewer names", "no effort", "a name twice", "NaN position",
                               "long velocity", "stamp zero", "stamp back", "another joint"]),
       every=st.booleans())
def test_bag_messages_that_disagree(tmp_path_factory, kind, row, change, every):
    t, q, qd, tau = motion()
    messages = []
    for k in range(S):
        ns, names, pos, vel, eff = int(round(t[k] * 1e9)), list(NAMES), list(q[k]), list(qd[k]), list(tau[k])
        if k == row or every:
            if change == "short position":
                pos = pos[:2]
            elif change == "fewer names":
                names = names[:2]
            elif change == "no effort":
                eff = []
            elif change == "a name twice":
                names = ["joint1", "joint1", "joint2"]
            elif change == "NaN position":
                pos = [np.nan] * 3
            elif change == "long velocity":
                vel = vel + [1.0]
            elif change == "stamp zero":
                ns = 0
            elif change == "stamp back":
                ns = int(round(t[0] * 1e9))
            else:
                names = ["joint1", "joint2", "joint4"]
        messages.append((ns, names, pos, vel, eff))
    folder = tmp_path_factory.mktemp("bag")
    path = write_bag(folder / ("log.bag" if kind == "ros1" else "bag"), kind, messages)
    check_read(path, joints=NAMES)
    check_read(path)


@FEW
@given(ext=st.sampled_from([".mcap", ".parquet", ".bag"]), edits=EDITS, many=st.booleans())
def test_identify_exits_0_or_2(valid, tmp_path_factory, ext, edits, many):
    folder = tmp_path_factory.mktemp("cli")
    path = folder / f"damaged{ext}"
    path.write_bytes(damage(valid[ext].read_bytes(), edits))
    files = [str(path)]
    if many:                               # the streamed path (logs reduced one by one) with a valid log first
        (folder / f"valid{ext}").write_bytes(valid[ext].read_bytes())
        files.insert(0, str(folder / f"valid{ext}"))
    for extra in ([], ["--skip-bad-rows"]):
        result = CliRunner().invoke(main, ["identify", PLANAR, *files, *extra])
        assert result.exit_code in (0, 2), result.output
        assert "Traceback" not in result.output, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
