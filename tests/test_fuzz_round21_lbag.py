"""Fuzz round twenty-one (issue 28), readers: the last stop's leftovers of the lbag set, each with a test that
fails on the code before its fix."""
from __future__ import annotations

import numpy as np
import pytest

import baseparam as bp
from baseparam.identification._cdr import JOINT_STATE_MSGDEF
from test_fuzz_round20_fzread import _mcap_with_definition
from test_logs import _message, _typestore

# rosbag2's ros2idl definition of a JointState, as its LocalMessageDefinitionSource writes it: the IDL files that
# rosidl_adapter generates from the .msg files (comments, #include lines, @verbatim annotations), each after a line
# of 80 '=' and 'IDL: pkg/msg/Type', the blocks apart by a blank line
_IDL_FILES = {
    "sensor_msgs/msg/JointState": '''// generated from rosidl_adapter/resource/msg.idl.em
// with input from sensor_msgs/msg/JointState.msg
// generated code does not contain a copyright notice

#include "std_msgs/msg/Header.idl"

module sensor_msgs {
  module msg {
    @verbatim (language="comment", text=
      "This is a message that holds data to describe the state of a set of torque controlled joints." "\\n"
      "" "\\n"
      "The state of each joint (revolute or prismatic) is defined by:" "\\n"
      " * the position of the joint (rad or m)," "\\n"
      " * the velocity of the joint (rad/s or m/s) and" "\\n"
      " * the effort that is applied in the joint (Nm or N).")
    struct JointState {
      std_msgs::msg::Header header;

      sequence<string> name;

      sequence<double> position;

      sequence<double> velocity;

      sequence<double> effort;
    };
  };
};
''',
    "std_msgs/msg/Header": '''// generated from rosidl_adapter/resource/msg.idl.em
// with input from std_msgs/msg/Header.msg
// generated code does not contain a copyright notice

#include "builtin_interfaces/msg/Time.idl"

module std_msgs {
  module msg {
    @verbatim (language="comment", text=
      "Standard metadata for higher-level stamped data types.")
    struct Header {
      @verbatim (language="comment", text=
        "Two-integer timestamp that is expressed as seconds and nanoseconds.")
      builtin_interfaces::msg::Time stamp;

      @verbatim (language="comment", text=
        "Transform frame with which this data is associated.")
      string frame_id;
    };
  };
};
''',
    "builtin_interfaces/msg/Time": '''// generated from rosidl_adapter/resource/msg.idl.em
// with input from builtin_interfaces/msg/Time.msg
// generated code does not contain a copyright notice


module builtin_interfaces {
  module msg {
    @verbatim (language="comment", text=
      "This message communicates ROS Time defined here:" "\\n"
      "https://design.ros2.org/articles/clock_and_time.html")
    struct Time {
      @verbatim (language="comment", text=
        "The seconds component, valid over all int32 values.")
      int32 sec;

      @verbatim (language="comment", text=
        "The nanoseconds component, valid in the range [0, 1e9).")
      uint32 nanosec;
    };
  };
};
''',
}


def _ros2idl(files):
    return "\n".join("=" * 80 + f"\nIDL: {name}\n{text}" for name, text in files.items())


def _mcap_with_idl(path, files, n=20):
    """An MCAP file of standard JointState messages (q = (0.1·k, 0.2, 0.3), q̇ = (1, 2, 3)) whose schema record
    carries ``files`` as a ``ros2idl`` definition."""
    from mcap.writer import CompressionType, Writer

    ts = _typestore()
    with open(path, "wb") as stream:
        writer = Writer(stream, compression=CompressionType.NONE)
        writer.start()
        schema = writer.register_schema("sensor_msgs/msg/JointState", "ros2idl", _ros2idl(files).encode())
        channel = writer.register_channel("/joint_states", "cdr", schema)
        for k in range(n):
            t = 10**9 + k * 5_000_000
            msg = _message(ts, t, ["shoulder", "elbow", "wrist"], [0.1 * k, 0.2, 0.3], [1.0, 2.0, 3.0],
                           [10.0, 20.0, 30.0])
            writer.add_message(channel, t, ts.serialize_cdr(msg, "sensor_msgs/msg/JointState"), t)
        writer.finish()
    return path


def test_joint_state_as_ros2idl_read(tmp_path):
    """The standard JointState as rosbag2 stores it in IDL (its blocks in another order too): read as before."""
    for order in (list(_IDL_FILES), list(reversed(_IDL_FILES))):
        path = _mcap_with_idl(tmp_path / "log.mcap", {name: _IDL_FILES[name] for name in order})
        traj = bp.read_trajectory(path)
        assert np.allclose(traj.q[:, 0], 0.1 * np.arange(20)) and np.array_equal(traj.qd[3], [1.0, 2.0, 3.0])


@pytest.mark.parametrize("kind, change, said", [
    ("sensor_msgs/msg/JointState", ("sequence<double> position;\n\n      sequence<double> velocity;",
                                    "sequence<double> velocity;\n\n      sequence<double> position;"),
     "field 3 is float64[] velocity, not float64[] position"),
    ("sensor_msgs/msg/JointState", ("sequence<double> effort;", "sequence<float> effort;"),
     "field 5 is float32[] effort, not float64[] effort"),
    ("builtin_interfaces/msg/Time", ("uint32 nanosec;", "uint64 nanosec;"),
     "builtin_interfaces/msg/Time is not the standard one (field 2 is uint64 nanosec, not uint32 nanosec)"),
])
def test_joint_state_as_ros2idl_of_another_definition_refused(tmp_path, kind, change, said):
    """A JointState whose ros2idl definition differs from sensor_msgs' (velocity before position, float32 values, a
    64-bit nanosec): rosbags' IDL parser read neither the blocks together nor rosidl's #include lines, so the type
    was read by its name with the standard layout, the file's velocities as positions, exit 0. Refused in one line
    naming the field, as the .msg definition is."""
    files = dict(_IDL_FILES)
    assert change[0] in files[kind]
    files[kind] = files[kind].replace(*change)
    with pytest.raises(bp.DataError, match="not the standard one") as caught:
        bp.read_trajectory(_mcap_with_idl(tmp_path / "log.mcap", files))
    assert said in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("change, said", [
    (("string[] name", "string[<=10] name"), "field 2 is string[<=10] name, not string[] name"),
    (("string[] name", "string<=8[] name"), "field 2 is string<=8[] name, not string[] name"),
    (("float64[] position", "float64[3] position"), "field 3 is float64[3] position, not float64[] position"),
])
def test_bounded_field_shown_with_its_bound(tmp_path, change, said):
    """A bounded sequence or string differs from the standard's unbounded one: the refusal showed both sides alike
    (``string[] name, not string[] name``), the bound dropped; it shows the bound."""
    with pytest.raises(bp.DataError, match="not the standard one") as caught:
        bp.read_trajectory(_mcap_with_definition(tmp_path / "log.mcap", JOINT_STATE_MSGDEF.replace(*change)))
    assert said in str(caught.value)
