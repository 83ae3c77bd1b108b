"""Fuzz round sixteen (issue 28), the readers' structure: what names a log's joints, columns and attachments, and the
numbers of a robot description, read as the file says (as the format's own reader reads it) or refused in one line —
never a column dropped, joints taken in another order, a value taken from a duplicate or another spelling, or another
library's warning spread over lines, without a word."""
import numpy as np
import pytest

import baseparam as bp
from baseparam.errors import BaseParamError
from test_fuzz_round13_fdat import NAMES, motion


def refused(read, *words):
    """The one-line BaseParamError ``read()`` raises, checked to hold ``words``."""
    with pytest.raises(BaseParamError) as caught:
        read()
    message = str(caught.value)
    assert "\n" not in message and all(word in message for word in words), message
    return message


def csv_log(tmp_path, names=NAMES):
    """write_trajectory's CSV of motion() with joint names ``names`` (its lines) and the motion's q."""
    t, q, tau = motion()
    path = tmp_path / "log.csv"
    bp.write_trajectory(bp.Trajectory(t, q, tau), path, joint_names=names)
    return path, path.read_text().split("\n"), q


@pytest.mark.parametrize("header, field", [("t,q0,q1,q2,tau0,tau1,tau2", "q0"),
                                           ("t,q[0],q[1],q[2],tau[0],tau[1],tau[2]", "q[0]"),
                                           ("t,q1,q2,q3,tau0,tau1,tau2", "tau0")])
def test_a_header_numbering_its_joints_from_zero_is_refused_not_read_a_joint_short(tmp_path, header, field):
    # joints are numbered from 1: the column q0 was left out and q1, q2 (the file's second and third joints) read as
    # joints 1 and 2, a 3-joint log read as a 2-joint one (exit 0 without a robot; with the tau0 … of a 1-based q,
    # the torques went one joint off); the same names in a DataFrame
    path, lines, _ = csv_log(tmp_path)
    path.write_text("\n".join([lines[0], header, *lines[2:]]))
    refused(lambda: bp.read_trajectory(path), str(path), f"column '{field}': joint 0", "numbered from 1")
    import pandas as pd
    frame = pd.read_csv(path, comment="#")
    refused(lambda: bp.from_dataframe(frame), f"column '{field}': joint 0")
    # mapped by name, the columns are the map's
    t, q, tau = motion()
    names = header.split(",")
    read = bp.read_trajectory(path, columns={"t": "t", "q": names[1:4], "tau": names[4:7]})
    assert np.array_equal(read.q, q) and np.array_equal(read.tau, tau)


@pytest.mark.parametrize("edit", [lambda lines: ["", *lines], lambda lines: ["# logged 2026-11-28", *lines],
                                  lambda lines: [lines[0].replace("# joints: ", "#joints:"), *lines[1:]],
                                  lambda lines: [lines[0].replace("joints", "Joints"), *lines[1:]],
                                  lambda lines: [lines[1], lines[0], *lines[2:]]],
                         ids=["blank line first", "another comment first", "#joints:", "# Joints:", "after the header"])
def test_a_csv_naming_its_joints_in_another_order_is_refused_wherever_the_names_stand(tmp_path, edit):
    # the names' line was looked for on the first line only, spelled '# joints:': a blank line or a comment before
    # it, other spacing or case, or the header before it hid the names, and the columns went to other joints
    path, lines, q = csv_log(tmp_path, ["joint2", "joint1", "joint3"])
    path.write_text("\n".join(edit(lines)))
    assert np.array_equal(bp.read_trajectory(path).q, q)             # without joints: read in the file's order
    refused(lambda: bp.read_trajectory(path, joints=NAMES), "the file names its joints joint2, joint1, joint3 in this")
    path.write_text("\n".join(edit(csv_log(tmp_path)[1])))            # the robot's order: read
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, q)


def test_an_npz_naming_its_joints_in_bytes_is_checked_as_text(tmp_path):
    # names saved as bytes ('S' dtype) read as "b'joint2'", names of no robot joint: the order check passed a file
    # naming the joints in another order, and the columns went to other joints
    t, q, tau = motion()
    path = tmp_path / "log.npz"
    np.savez(path, t=t, q=q, tau=tau, joint_names=np.array([b"joint2", b"joint1", b"joint3"]))
    refused(lambda: bp.read_trajectory(path, joints=NAMES), "the file names its joints joint2, joint1, joint3 in this")
    np.savez(path, t=t, q=q, tau=tau, joint_names=np.array([b"joint1", b"joint2", b"joint3"]))
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, q)


@pytest.mark.parametrize("value, said", [(b'["joint2", "joint1", ', "not JSON"),
                                         (b'["joint2", 1, "joint3"]', "expected a list of joint names"),
                                         (b'{"joint2": 0}', "expected a JSON list")])
def test_a_parquet_logs_damaged_joint_names_are_refused_not_ignored(tmp_path, value, said):
    # baseparam's own metadata key, damaged, was read as no names: the lists were then taken in the file's order
    # (joint2's values as joint1's), where a LeRobot info.json damaged alike is refused
    import pyarrow.parquet as pq
    t, q, tau = motion()
    path = tmp_path / "log.parquet"
    bp.write_trajectory(bp.Trajectory(t, q, tau), path, joint_names=["joint2", "joint1", "joint3"])
    table = pq.read_table(path)
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, q[:, [1, 0, 2]])     # by the names
    pq.write_table(table.replace_schema_metadata({**table.schema.metadata, b"baseparam.joint_names": value}), path)
    refused(lambda: bp.read_trajectory(path, joints=NAMES), str(path), "metadata baseparam.joint_names", said)
    pq.write_table(table.replace_schema_metadata({}), path)              # another writer's file: in its order
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, q)


@pytest.mark.parametrize("spelled, reading", [("1_0", "10"), ("0.5_0", "0.5"), ("9_0", "90")])
def test_a_description_number_spelled_with_underscores_is_refused(spelled, reading):
    # YAML 1.1 drops '_' ('90_0' was 900°), YAML 1.2 reads the word as text; the URDF reader, the CSV reader and
    # the command line refuse it already
    text = ("name: X\nunits: {length: m, angle: deg}\njoints:\n"
            f"  - {{type: revolute, alpha: {spelled}, a: {spelled}, d: 0}}\n"
            "  - {type: revolute, alpha: 0, a: 1, d: 0}\n")
    refused(lambda: bp.parse_robot(text, "arm.yaml"), "arm.yaml: joints[1].", f"got '{spelled}'",
            f"YAML 1.1 reads it as {reading}", "YAML 1.2 as text")
    assert bp.parse_robot(text.replace(spelled, reading), "arm.yaml").n_dof == 2


def test_an_hdf5_field_whose_soft_link_lost_its_dataset_is_refused_not_taken_from_another_key(tmp_path):
    # q, a soft link whose dataset is gone (h5py: KeyError), was passed over, and the field taken from the next name of
    # its list ('positions', here another motion's) without a word
    import h5py
    t, q, tau = motion()
    path = tmp_path / "log.h5"
    with h5py.File(path, "w") as f:
        f["t"], f["tau"], f["positions"] = t, tau, q[::-1]
        f["q"] = h5py.SoftLink("/logged/q")
    refused(lambda: bp.read_trajectory(path), str(path), "key q: a soft link to '/logged/q', which names nothing")
    with h5py.File(path, "a") as f:
        f["logged/q"] = q                                                # the link's dataset: read through it
    # (named: by default, q and the other motion's positions are two default keys of q that differ, refused)
    assert np.array_equal(bp.read_trajectory(path, columns={"q": "q"}).q, q)


def space_log(samples=30, seed=3, joint_names=(), dynamics=False):
    """The space robot and a floating-base log of it (no contacts): ``samples`` samples of random q (the base at rest
    orientation), qd and, with ``dynamics``, qdd and tau, its joints named ``joint_names``; and the generator, to draw
    more from."""
    from test_fuzz_round13_fdat import SPACE
    robot = bp.load_robot(SPACE)
    n, S = robot.n_dof, samples
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(S, n + 7)) * 0.1
    q[:, 3:7] = [0, 0, 0, 1]
    qd = rng.normal(size=(S, n + 6))
    more = {"qdd": rng.normal(size=(S, n + 6)), "tau": rng.normal(size=(S, n + 6))} if dynamics else {}
    log = bp.Trajectory(t=np.arange(S) * 0.01, q=q, qd=qd, floating=True, joint_names=tuple(joint_names), **more)
    return robot, log, rng


def test_a_floating_parquet_logs_damaged_metadata_is_refused_not_ignored(tmp_path):
    # baseparam.floating (the joints' and contacts' names), damaged, was read as none: the contacts' order unchecked
    import pyarrow.parquet as pq
    robot, log, _ = space_log(dynamics=True)
    q = log.q
    path = tmp_path / "f.parquet"
    bp.write_trajectory(log, path)
    assert np.array_equal(bp.read_trajectory(path, robot=robot).q, q)
    table = pq.read_table(path)
    pq.write_table(table.replace_schema_metadata({b"baseparam.floating": b'{"contacts": ["left", '}), path)
    refused(lambda: bp.read_trajectory(path, robot=robot), str(path), "metadata baseparam.floating: not JSON")
    pq.write_table(table.replace_schema_metadata({}), path)              # another writer's file: its columns
    assert np.array_equal(bp.read_trajectory(path, robot=robot).q, q)


def floating_csv(tmp_path, contacts=0):
    """The space robot, and a floating-base CSV of it (write_floating_log) with ``contacts`` contacts: its lines."""
    from baseparam.identification.floating_logs import write_floating_log
    robot, log, rng = space_log(samples=20, seed=4)
    path = tmp_path / "f.csv"
    write_floating_log(path, log, rng.normal(size=(20, contacts, 6)) if contacts else None)
    return robot, path, path.read_text().split("\n")


@pytest.mark.parametrize("column", ["q14", "qd13", "q0"])
def test_a_floating_csv_with_a_joint_column_the_robot_has_not_is_refused(tmp_path, column):
    # the columns are taken by name: a log of a robot with one joint more (q14, qd13) was read with its last joint
    # dropped, without a word, where an NPZ or Parquet log of that width is refused
    robot, path, lines = floating_csv(tmp_path)
    path.write_text("\n".join([lines[0] + f",{column}"] + [line + ",0.5" for line in lines[1:] if line]) + "\n")
    refused(lambda: bp.read_trajectory(path, robot=robot), str(path), f"column '{column}'", "q1…q13")
    path.write_text("\n".join([lines[0] + ",note"] + [line + ",0.5" for line in lines[1:] if line]) + "\n")
    assert bp.read_trajectory(path, robot=robot).q.shape == (20, 13)    # another column: not the robot's, read


def test_a_floating_csv_holding_more_contacts_than_read_is_refused(tmp_path):
    # a second contact's wrench (w2_fx…) was left out when one contact was read: its force missing from the fit
    robot, path, _ = floating_csv(tmp_path, contacts=2)
    refused(lambda: bp.read_trajectory(path, robot=robot, contacts=["left"]), str(path), "column 'w2_fx'",
            "beyond the 1 contact read")
    assert bp.read_trajectory(path, robot=robot, contacts=["left", "right"]).wrenches.shape == (20, 2, 6)


@pytest.mark.parametrize("front", [b"\x00" * 64, b"MZ", b"#!/bin/sh\n"])
def test_an_npz_with_bytes_before_its_archive_is_refused_as_numpy_refuses_it(tmp_path, front):
    # zipfile finds an archive by its directory at the end and read it whatever came before (a damaged start, a file
    # glued in front); numpy.load, the format's reader, takes a file for an archive by its first bytes and refuses it
    t, q, tau = motion()
    path = tmp_path / "log.npz"
    np.savez(path, t=t, q=q, tau=tau)
    path.write_bytes(front + path.read_bytes())
    with pytest.raises(ValueError):
        np.load(path, allow_pickle=False)
    refused(lambda: bp.read_trajectory(path), str(path), "not a valid NPZ file")


ARM = "name: X\nunits: {length: m, angle: deg}\njoints:\n  - {type: revolute, alpha: 0, a: 1, d: 0%s}\n"


def test_a_description_merging_twice_in_one_mapping_is_refused_as_a_duplicate_key():
    # two '<<' keys in one mapping were merged both, the later one's a (6) winning, where any other key twice is
    # refused (and a YAML 1.2 reader refuses it); one '<<' of a list merges as YAML says, the first mapping winning
    text = ("name: X\nunits: {length: m, angle: deg}\njoints:\n"
            "  - {<<: {a: 5}, <<: {a: 6}, type: revolute, alpha: 0, d: 0}\n")
    refused(lambda: bp.parse_robot(text, "arm.yaml"), "arm.yaml: joints[1]: duplicate merge key << (twice on line 4)")
    merged = bp.parse_robot(text.replace("<<: {a: 5}, <<: {a: 6}", "<<: [{a: 5}, {a: 6}]"), "arm.yaml")
    assert merged.joints[0].a == 5


@pytest.mark.parametrize("field, said", [(", a: !!int 1.5", "got '1.5' (tagged !!int: no integer YAML reads)"),
                                         (", rotor_inertia: !!bool 1", "expected true or false, got '1'")])
def test_a_tagged_description_value_of_no_reading_is_not_said_to_have_one(field, said):
    # '!!int 1.5' was said to be read "as octal" by YAML 1.1, '!!bool 1' "as false": no YAML reads them so
    text = ARM.replace("a: 1, ", "") % field if "a:" in field else ARM % field
    message = refused(lambda: bp.parse_robot(text, "arm.yaml"), said)
    assert "octal" not in message and "reads it as" not in message


def test_a_bag_metadata_warning_of_another_library_is_one_line_naming_the_bag(tmp_path):
    # a metadata.yaml defining an anchor twice (PyYAML refuses it, so baseparam's own checks left it to rosbags):
    # ruamel.yaml's ReusedAnchorWarning reached the command line's stderr as 8 lines naming "<unicode string>"
    import warnings

    from click.testing import CliRunner

    from baseparam.cli import main
    from test_fuzz_round13_fdat import ros2_bag
    bag = tmp_path / "bag"
    q = ros2_bag(bag)
    meta = bag / "metadata.yaml"
    text = meta.read_text()
    assert "  ros_distro: rosbags\n" in text and "  custom_data: null\n" in text
    twice = "  ros_distro: &x rosbags\n  custom_data: &x null\n"
    meta.write_text(text.replace("  custom_data: null\n", "").replace("  ros_distro: rosbags\n", twice))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert np.array_equal(bp.read_trajectory(bag, joints=NAMES).q, q)
    said = [str(w.message) for w in caught if "anchor" in str(w.message)]
    assert len(said) == 1 and said[0].startswith(f"{bag}: ") and "\n" not in said[0], said
    robot = tmp_path / "arm.yaml"
    robot.write_text("name: arm\nunits: {length: m, angle: deg}\njoints:\n" + "".join(
        f"  - {{type: revolute, alpha: 90, a: 0.5, d: 0.1, name: {name}}}\n" for name in NAMES))
    result = CliRunner().invoke(main, ["identify", str(robot), str(bag), "--cutoff", "none", "--rest-velocity", "none"])
    assert result.exit_code == 0, result.output
    assert all(line.startswith("baseparam: ") for line in result.stderr.splitlines()), result.stderr
    assert sum("duplicate anchor 'x'" in line for line in result.stderr.splitlines()) == 1, result.stderr


def mcap_with_attachments(path, attachments):
    """An MCAP file of motion(40) as JointState messages (baseparam's CDR rows) and ``attachments`` [(name, float64
    array)] in front; its t, q."""
    from mcap.writer import CompressionType, Writer

    from baseparam.identification._cdr import JOINT_STATE_MSGDEF, encode
    t, q, tau = motion(40)
    rows = encode(t, NAMES, q, np.zeros_like(q), tau)
    with open(path, "wb") as stream:
        writer = Writer(stream, compression=CompressionType.NONE)
        writer.start("ros2", "test")
        for name, values in attachments:
            writer.add_attachment(0, 0, name, "application/octet-stream", np.asarray(values, "<f8").tobytes())
        schema = writer.register_schema("sensor_msgs/msg/JointState", "ros2msg", JOINT_STATE_MSGDEF.encode())
        channel = writer.register_channel("/joint_states", "cdr", schema)
        for k in range(t.size):
            ns = int(round(t[k] * 1e9))
            writer.add_message(channel, ns, rows[k].tobytes(), ns, sequence=k)
        writer.finish()
    return t, q


def test_an_mcap_attachment_of_baseparams_writer_held_twice_is_refused_and_one_of_another_size_said(tmp_path):
    # two 'baseparam/joint_states/qdd' attachments: the last one's accelerations were taken without a word; one of
    # another size than the messages', or times that do not round to the stamps, were left out silently (q̈ then
    # derived, and a floating base's attached wrench read as zero)
    name, path = "baseparam/joint_states/qdd", tmp_path / "log.mcap"
    mcap_with_attachments(path, [(name, np.ones((40, 3))), (name, np.zeros((40, 3)))])
    refused(lambda: bp.read_trajectory(path, joints=NAMES), str(path), f"attachment '{name}' appears more than once")
    mcap_with_attachments(path, [(name, np.ones((40, 4)))])
    read = bp.read_trajectory(path, joints=NAMES)
    said = f"{path}: attachment {name}: 160 values for 40 messages of 3 values; not used"
    assert read.qdd is None and said in read.notes, read.notes
    t, _ = mcap_with_attachments(path, [("baseparam/joint_states/t", t_off := motion(40)[0] + 0.5)])
    read = bp.read_trajectory(path, joints=NAMES)
    assert not np.array_equal(read.t, t_off) and any("attachment baseparam/joint_states/t: its times do not round to "
                                                     "the messages' stamps; not used" in note for note in read.notes)
    mcap_with_attachments(path, [(name, np.ones((40, 3)))])           # as the writer attaches it: read
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).qdd, np.ones((40, 3)))


@pytest.mark.parametrize("left_out", ["ixx", "iyy", "izz"])
def test_a_urdf_inertia_without_a_moment_is_refused_not_read_as_zero(tmp_path, left_out):
    # a missing ixx/iyy/izz was read as 0, another body without a word, where urdfdom refuses an <inertia> without
    # all six attributes and Bullet without the three moments; the products of inertia still default to 0 (Bullet)
    inertia = {"ixx": "0.02", "iyy": "0.03", "izz": "0.04"}
    def urdf(attributes):
        return ('<robot name="r"><link name="b"/><link name="l1"><inertial><mass value="2"/>'
                f'<inertia {attributes}/></inertial></link><joint name="j1" type="revolute"><parent link="b"/>'
                '<child link="l1"/><axis xyz="0 0 1"/><limit effort="1" velocity="1" lower="-1" upper="1"/></joint>'
                '</robot>')
    path = tmp_path / "arm.urdf"
    path.write_text(urdf(" ".join(f'{k}="{v}"' for k, v in inertia.items() if k != left_out)))
    refused(lambda: bp.load_robot(path), str(path), f"link 'l1' <inertial><inertia {left_out}>: expected a moment of "
            f"inertia, got no {left_out} attribute")
    path.write_text(urdf(" ".join(f'{k}="{v}"' for k, v in inertia.items())))
    assert bp.load_robot(path).n_dof == 1


def test_a_parquet_log_of_a_column_per_joint_naming_its_joints_in_another_order_is_refused(tmp_path):
    # q1, q2, q3 columns are taken by their numbers; baseparam.joint_names saying the file's joints are joint2, joint1,
    # joint3 was not looked at, and the columns went to other joints (the list layout reorders them by the names)
    import pyarrow as pa
    import pyarrow.parquet as pq
    t, q, tau = motion()
    table = pa.table({"t": t, **{f"q{k + 1}": q[:, k] for k in range(3)},
                      **{f"tau{k + 1}": tau[:, k] for k in range(3)}})
    path = tmp_path / "log.parquet"
    pq.write_table(table.replace_schema_metadata({b"baseparam.joint_names": b'["joint2", "joint1", "joint3"]'}), path)
    assert np.array_equal(bp.read_trajectory(path).q, q)                 # without joints: read by the numbers
    refused(lambda: bp.read_trajectory(path, joints=NAMES), str(path), "the file names its joints joint2, joint1, "
            "joint3 in this order", "read by their numbers")
    pq.write_table(table.replace_schema_metadata({b"baseparam.joint_names": b'["joint1", "joint2", "joint3"]'}), path)
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, q)


def test_a_bag_folders_counts_are_read_as_its_reader_reads_them(tmp_path):
    # metadata.yaml was parsed by PyYAML (YAML 1.1) while rosbags parses it with ruamel (YAML 1.2): a count written
    # '020' was 16 for the check and 20 for the reader, so a message lost from a bag of 20 (19 read) passed as
    # "more read than counted" instead of the warning that one is missing
    from test_fuzz_round14_fdat import bag_of_a_lost_message
    bag = tmp_path / "bag"
    q = bag_of_a_lost_message(bag)
    meta = bag / "metadata.yaml"
    text = meta.read_text()
    assert text.count("message_count: 20\n") == 3              # the bag, its file, its topic
    meta.write_text(text.replace("message_count: 20\n", "message_count: 020\n"))
    with pytest.warns(bp.DataWarning, match="topic /joint_states: 19 messages read, metadata.yaml counts 20"):
        assert np.array_equal(bp.read_trajectory(bag, joints=NAMES).q, np.delete(q, 4, axis=0))
