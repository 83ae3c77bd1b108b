"""Fuzz round 23 (issue 28), the lead's own finds.

- KUKA's load data (A, B, C and JX, JY, JZ) took the principal axes in eigh's ascending order: a tool whose
  smallest moment is about the flange's z axis (a rod along it) came out at B = −90°, where Rz(A)·Ry(B)·Rx(C)
  cannot tell A from C, and A = C = 0 was written: another tensor, read by a controller without a word
  (158 of 1 500 axis-aligned tensors). The axes are now those nearest the flange frame.
"""
import numpy as np
import pinocchio as pin
import pytest
from scipy.spatial.transform import Rotation

from baseparam.identification.payload import PayloadResult, payload_parameters
from conftest import ROOT

PSEUDO = ("XX", "YY", "ZZ", "XY", "XZ", "YZ", "SX", "SY", "SZ", "M")


def _result(inertia):
    c = np.array([0.01, -0.02, 0.08])
    p = payload_parameters(1.2, c, inertia)
    return PayloadResult(mass=1.2, com=c, inertia=inertia, mass_std=0.0, com_std=np.zeros(3),
                         inertia_std=np.zeros((3, 3)), parameters=p, unconstrained=p, covariance=np.zeros((10, 10)),
                         identifiable=list(PSEUDO), rank=10, mode="model", n_samples=1, rmse=np.zeros(6))


def _kuka_tensor(k):
    """The tensor KUKA's numbers describe, through pinocchio's rotations (R = Rz(A) Ry(B) Rx(C))."""
    A, B, C = np.radians([k["A"], k["B"], k["C"]])
    R = pin.rpy.rpyToMatrix(0, 0, A) @ pin.rpy.rpyToMatrix(0, B, 0) @ pin.rpy.rpyToMatrix(C, 0, 0)
    return R @ np.diag([k["JX"], k["JY"], k["JZ"]]) @ R.T


ROD_ALONG_Z = np.diag([0.004, 0.0045, 0.0005])          # the smallest moment about the flange's z axis


@pytest.mark.parametrize("case", range(40))
def test_kuka_load_data_give_the_tensor_back(case):
    rng = np.random.default_rng(case)
    # principal moments of a body (second moments d: each moment the sum of two, so the triangle inequality holds):
    # a PayloadResult refuses an inertia no body has since round 23 (lapi2)
    d = rng.uniform(5e-5, 5e-3, 3)
    moments = d.sum() - d
    if case == 0:
        inertia = ROD_ALONG_Z
    elif case < 20:         # axes along the flange's, in any order and sign: eigh's order put some at B = ±90°
        P = np.eye(3)[rng.permutation(3)] * rng.choice([-1.0, 1.0], 3)
        inertia = P @ np.diag(moments) @ P.T
    else:
        R = Rotation.random(random_state=case).as_matrix()
        inertia = R @ np.diag(moments) @ R.T
    k = _result(inertia).to_vendor("kuka")
    assert np.allclose(_kuka_tensor(k), inertia, rtol=0, atol=1e-12 * np.abs(inertia).max())
    assert abs(k["B"]) < 70.0                   # the nearest axes: never near the ±90° of no A and C


def test_a_tool_with_the_flange_axes_has_no_rotation():
    k = _result(ROD_ALONG_Z).to_vendor("kuka")
    assert (k["A"], k["B"], k["C"]) == (0.0, 0.0, 0.0)
    assert (k["JX"], k["JY"], k["JZ"]) == (0.004, 0.0045, 0.0005)


def _write_parquet(path, columns):
    import pyarrow as pa
    import pyarrow.parquet as pq
    pq.write_table(pa.table(columns), path)


def test_parquet_twins_holding_the_same_values_are_read():
    """A Parquet log's two default names of one field holding the same values, with a NaN or at another width,
    were refused as 'different values' (pyarrow's equals: NaN unequal to NaN, float32 unequal to float64), where
    the NPZ and HDF5 readers compare by value; other values are still refused."""
    import tempfile
    from pathlib import Path

    import pyarrow as pa

    from baseparam import read_trajectory
    from baseparam.errors import DataError

    t = np.linspace(0.0, 1.9, 20)
    q = (np.sin(t)[:, None] * [1.0, 2.0]).astype(np.float32).astype(float)     # float32's values, in float64
    q[3, 1] = np.nan                         # a damaged row, in both columns
    tau = np.cos(t)[:, None] * [3.0, 4.0]
    base = {"t": pa.array(t.astype(np.float32).astype(float)), "q": pa.array(list(q)), "tau": pa.array(list(tau))}
    with tempfile.TemporaryDirectory() as folder:
        plain, twin, other = (Path(folder) / f"{name}.parquet" for name in ("plain", "twin", "other"))
        _write_parquet(plain, base)
        _write_parquet(twin, {**base, "time": pa.array(t.astype(np.float32)),
                              "positions": pa.array(list(q.astype(np.float32)))})
        a, b = (read_trajectory(p, skip_bad_rows=True) for p in (plain, twin))
        for name in ("t", "q", "tau"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        shifted = q.copy()
        shifted[5, 0] += 1e-3
        _write_parquet(other, {**base, "positions": pa.array(list(shifted))})
        with pytest.raises(DataError, match=r"field q: columns 'q' and 'positions' both hold it, with different"):
            read_trajectory(other, skip_bad_rows=True)


@pytest.mark.parametrize("fmt", [repr, "{:g}".format, "{:.6e}".format, lambda v: str(int(round(v * 1000)))])
def test_a_whole_last_line_without_line_end_reads_silently_and_a_cut_one_warns(fmt, tmp_path):
    """A log whose last line has no line end was warned about on every read unless its last column was fixed-decimal
    ('%.4f'): a file joined with '\\n'.join in repr, '%g', '%.6e' or integers is whole; a last value shorter than every
    earlier one of its column is what a cut leaves ('1.234567e-0' of '1.234567e-05'), and is still warned about."""
    import warnings

    from baseparam import read_trajectory
    from baseparam.errors import DataWarning

    rng = np.random.default_rng(5)
    t = 0.5 + 0.01 * np.arange(40)
    table = np.column_stack([t, rng.uniform(-1, 1, (40, 2)), rng.uniform(10, 20, (40, 2)) * rng.choice([-1, 1], 2)])
    lines = ["t,q1,q2,tau1,tau2"] + [",".join([repr(float(row[0]))] + [fmt(float(v)) for v in row[1:]])
                                     for row in table]
    path = tmp_path / "log.csv"
    path.write_text("\n".join(lines))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_trajectory(path)
    shortest = min(len(line.rsplit(",", 1)[1]) for line in lines[1:])
    cut = len(lines[-1].rsplit(",", 1)[1]) - shortest + 1        # the last value one character below the shortest
    path.write_text("\n".join(lines)[:-cut])
    with pytest.warns(DataWarning, match=r"log.csv: line 41: the last line has no line end"):
        read_trajectory(path)


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_a_urdf_without_byte_order_mark_beginning_with_blanks_is_read_in_its_encoding(codec, tmp_path):
    """A URDF in UTF-32 (or UTF-16) without its byte-order mark whose first characters are blanks was read as UTF-8,
    NUL-riddled, and refused as 'not well-formed XML at line 2': XML's appendix F looks for '<' after them."""
    import baseparam as bp
    text = ('<robot name="arm">'
            '<link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/>'
            '</inertial></link>'
            '<link name="b"><inertial><mass value="2"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/>'
            '</inertial></link>'
            '<joint name="j" type="revolute"><parent link="a"/><child link="b"/><origin xyz="0 0 0.3"/>'
            '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>\n')
    plain = tmp_path / "plain.urdf"
    plain.write_text(text, encoding="utf-8")
    for blanks in ("", "\n", " \t\r\n  "):
        path = tmp_path / "encoded.urdf"
        path.write_bytes((blanks + text).encode(codec))
        assert bp.load_robot(path) == bp.load_robot(plain)


def test_a_floating_parquet_log_of_several_episodes_is_refused_naming_them(space, tmp_path):
    """LeRobot's episode_index in a floating-base Parquet log: several episodes (times starting again at each) were
    read as one motion (refused as time going backwards, or with skip_bad_rows every later episode dropped); one
    episode reads as without the column, as the fixed-base reader does."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    import baseparam as bp
    from baseparam.errors import DataError
    from baseparam.identification.floating_logs import _write_floating_parquet, read_floating

    robot = bp.load_robot(ROOT / "robots" / "space_robot.yaml")
    path = tmp_path / "log.parquet"
    _write_floating_parquet(space.log, path, [f"joint{k + 1}" for k in range(robot.n_dof)])
    plain = read_floating(path, robot)
    table = pq.read_table(path)
    S = table.num_rows
    for episodes, refused in ((np.zeros(S, dtype=np.int64), False), (np.arange(S) // (S // 2 + 1), True)):
        pq.write_table(table.append_column("episode_index", pa.array(episodes)), path)
        if refused:
            with pytest.raises(DataError, match=r"log.parquet: column episode_index: 2 episodes \(0, 1\) in one file"):
                read_floating(path, robot)
        else:
            got = read_floating(path, robot)
            np.testing.assert_array_equal(got.q, plain.q)
            np.testing.assert_array_equal(got.t, plain.t)


@pytest.mark.parametrize("step", [5e-324, 1e-300, 1e-12])
def test_a_simulation_of_steps_below_a_nanosecond_is_refused(step):
    """simulate over times 5e-324 s apart: SciPy's first-step estimate overflowed into a raw RuntimeWarning (fzapi),
    and a run of zeros came back."""
    import warnings

    import baseparam as bp
    from conftest import planar_arm
    model, z = bp.Model(planar_arm()), np.zeros(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(bp.ArgumentError, match=r"^t: a step of .* s \(t\[1\] after t\[0\]\), below 1e-09 s"):
            bp.simulate(model, np.arange(12) * step, z, z, None)
        bp.simulate(model, np.arange(12) * 1e-3, z, z, None)


def test_an_origin_holds_plain_floats():
    """Origin kept numpy scalars as given: its repr read (np.float64(0.0), …) (fzapi)."""
    from fractions import Fraction

    from baseparam.model.robot import Origin
    origin = Origin(xyz=np.array([0.0, 1.0, 2.0]), rpy=(np.float64(0.5), 0, Fraction(1, 4)))
    assert repr(origin) == "Origin(xyz=(0.0, 1.0, 2.0), rpy=(0.5, 0.0, 0.25), label='')"
    assert all(type(v) is float for v in origin.xyz + origin.rpy)
    assert origin == Origin(xyz=(0, 1, 2), rpy=(0.5, 0, 0.25))
