"""The lead's findings of round 21, each with a test that fails before its fix."""
import numpy as np
import pytest

import baseparam as bp
from baseparam.identification.floating_logs import read_floating

from test_floating_logs import SPACE


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("ext", [".parquet", ".npz", ".csv"])
def test_a_floating_logs_non_finite_value_is_said_so_in_every_format(tmp_path, ext, bad):
    """A Parquet floating-base log's NaN was refused as 'absurd value (nan; beyond ±1000)', the CSV and NPZ logs' as
    'not a finite number': one check of a floating log's values now serves every reader."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    robot = bp.load_robot(SPACE)
    n_q, n_v, S = robot.n_dof + 7, robot.n_dof + 6, 4
    q = np.zeros((S, n_q))
    q[:, 3] = 1.0                                   # a unit quaternion (w first or last: both unit)
    q[2, 8] = bad                                   # row 2, q9: the first joint
    qd = np.zeros((S, n_v))
    t = np.arange(S) * 0.01
    path = tmp_path / f"log{ext}"
    if ext == ".parquet":
        pq.write_table(pa.table({"t": t, "q": list(q), "qd": list(qd)}), path)
    elif ext == ".npz":
        np.savez(path, t=t, q=q, qd=qd)
    else:
        header = ["t"] + [f"q{i + 1}" for i in range(n_q)] + [f"qd{i + 1}" for i in range(n_v)]
        rows = [",".join(str(float(v)) for v in (t[k], *q[k], *qd[k])) for k in range(S)]
        path.write_text(",".join(header) + "\n" + "\n".join(rows) + "\n")
    with pytest.raises(bp.DataError) as info:
        read_floating(path, robot)
    assert "q9: not a finite number" in str(info.value), str(info.value)


def test_a_long_table_of_round_off_angles_is_counted_not_cut(tmp_path):
    """A 64-joint DH table of alpha = 89.99999999999999 deg warned of all 64 in one 3 300-character line, which the
    command line's bound on a line (2 000 characters) cut in the middle of an entry: the first MAX_PROBLEMS are said,
    then how many more, as a description's problems are."""
    import warnings

    from baseparam.model.checks import MAX_PROBLEMS
    n = 64
    rows = "\n".join(f"  - {{type: revolute, alpha: {89.99999999999999 if k % 2 else -89.99999999999999}, a: 100, "
                     "d: 0}" for k in range(n))
    path = tmp_path / "long.yaml"
    path.write_text(f"name: long\nconvention: standard\nunits: {{length: mm, angle: deg}}\njoints:\n{rows}\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        robot = bp.load_robot(path)
    said = [str(w.message) for w in caught if issubclass(w.category, bp.RoundOffWarning)]
    assert len(said) == 1 and robot.n_dof == n
    assert said[0].count(" deg as ") == MAX_PROBLEMS and f"; and {n - MAX_PROBLEMS} more" in said[0], said[0]
    assert "joints[1].alpha" in said[0] and f"joints[{n}].alpha" not in said[0]
    assert len(said[0]) < 2000


@pytest.mark.parametrize("codec", ["unicode_escape", "raw_unicode_escape", "utf-7"])
def test_a_urdf_declaring_an_escaping_codec_is_refused_not_read_otherwise(tmp_path, codec):
    """A URDF declaring ``unicode_escape`` was decoded by it: the mesh path ``C:\\assets\\arm.stl`` read with a bell
    character (and ``+AGE-`` would be an 'a' in UTF-7) — codecs that do not read ASCII as ASCII, which expat refuses;
    refused in one line naming the encoding."""
    from baseparam.errors import RobotDescriptionError
    path = tmp_path / "arm.urdf"
    path.write_bytes(f"<?xml version='1.0' encoding='{codec}'?>\n".encode() + b"""<robot name="arm">
  <link name="base"/>
  <link name="l1"><visual><geometry><mesh filename="C:\\assets\\arm.stl"/></geometry></visual>
    <inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>
""")
    with pytest.raises(RobotDescriptionError, match=f"encoding '{codec}', which does not read ASCII as ASCII") as info:
        bp.load_robot(path)
    assert "\n" not in str(info.value) and "arm.urdf" in str(info.value)


def test_a_values_undecodable_file_name_bytes_are_shown_as_the_text_they_spell():
    """rv3: ``printable`` showed a file name's surrogate-escaped bytes (LC_ALL=C without UTF-8 mode) as the UTF-8 text
    they spell, but ``shown`` (the repr of a value, 217 call sites) took the repr first: '/tmp/\\udcc3\\udca9t…' where
    the user typed 'été'. A byte that spells no UTF-8 stays escaped."""
    from baseparam._checks import shown
    typed = "/tmp/\udcc3\udca9t\udcc3\udca9.bogus"        # os.fsdecode(b"/tmp/\xc3\xa9t\xc3\xa9.bogus") under LC_ALL=C
    assert shown(typed) == "'/tmp/été.bogus'"
    assert shown("/tmp/\udce9x") == "'/tmp/\\udce9x'" and shown("a\nb") == "'a\\nb'" and shown("é") == "'é'"
