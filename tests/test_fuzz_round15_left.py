"""Round 15: the last stop's leftovers (issue 28's "Left" and "Noticed, not touched"; issue 22's last read)."""
import warnings

import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT

SPACE = ROOT / "robots" / "space_robot.yaml"
# stamps of a 73 Hz log rounded to the ns: the steps are not all equal, so np.gradient takes its non-uniform formula,
# whose three coefficients cancel only up to round-off on a column that does not change
STAMPS = np.round((np.arange(60) * 0.0137 + 0.1) * 1e9) / 1e9


# --- 1. every derived rate of an unchanging column is exactly 0 (motion.central_differences) ---

def test_a_still_base_read_from_poses_has_a_twist_of_exactly_zero(tmp_path):
    """A PoseStamped base held at a pose: the twist derived from the poses was ~7e-15 and its rate ~5e-13
    (round-off columns, which a floating fit takes for motion it sees)."""
    from test_floating_logs import rosbags_bag
    q = np.zeros((STAMPS.size, 13))
    q[:, :3] = [0.3, -0.7, 1.1]
    q[:, 3:7] = np.array([0.1, 0.2, 0.3, 0.9]) / np.linalg.norm([0.1, 0.2, 0.3, 0.9])
    q[:, 7:] = np.sin(np.outer(STAMPS, np.arange(1, 7)))
    path = rosbags_bag(tmp_path / "bag", STAMPS, q, np.zeros((STAMPS.size, 6)), pose_only=True)
    traj = bp.read_trajectory(path, robot=bp.load_robot(SPACE))
    assert any("base twist derived from the poses" in note for note in traj.notes)
    assert not traj.qd[:, :6].any() and not traj.qdd[:, :6].any()


def test_an_imus_constant_rate_has_an_angular_acceleration_of_exactly_zero():
    from baseparam.identification.imu import base_from_imu
    S = STAMPS.size
    _, qd, qdd = base_from_imu(STAMPS, None, np.tile([0.3, -0.2, 0.7], (S, 1)), np.tile([0.0, 0.0, 9.81], (S, 1)))
    assert np.array_equal(qd[:, 3:], np.tile([0.3, -0.2, 0.7], (S, 1)))
    assert not qdd[:, 3:].any()
    # a rate that changes keeps numpy's central differences
    omega = np.column_stack([np.sin(STAMPS), np.full(S, 0.5), STAMPS ** 2])
    _, _, qdd = base_from_imu(STAMPS, None, omega, np.tile([0.0, 0.0, 9.81], (S, 1)))
    assert np.array_equal(qdd[:, 3:][:, [0, 2]], np.gradient(omega, STAMPS, axis=0)[:, [0, 2]])
    assert not qdd[:, 4].any()


def test_a_robot_standing_still_with_logged_velocities_of_zero_draws_no_units_warning():
    """The velocity-units check compared the logged q̇ = 0 with round-off rates of the positions (the only 'motion'
    there was) and warned that the logged velocities disagree with the positions (check the units)."""
    q = np.tile([0.3, -1.2], (STAMPS.size, 1))
    still = bp.Trajectory(t=STAMPS, q=q, qd=np.zeros_like(q), tau=np.ones_like(q))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bp.preprocess(still, bp.Preprocessing.none())
    # the check itself still works: velocities in degrees next to positions in radians
    moving = bp.Trajectory(t=STAMPS, q=np.sin(np.outer(STAMPS, [1, 2])), qd=np.degrees(np.cos(np.outer(STAMPS, [1, 2]))
                                                                                     * [1, 2]), tau=np.ones_like(q))
    with pytest.warns(bp.DataWarning, match="logged velocities disagree with the positions"):
        bp.preprocess(moving, bp.Preprocessing.none())


def test_drive_gains_of_a_still_joint_fit_no_friction_to_round_off_velocities(tmp_path):
    """--gains-from-targets derived unlogged velocities with np.gradient: a still joint's round-off q̇ made
    sign(q̇) a column of ±1 and q̇ a column of 1e-15 that the fit used to explain the logged current's rounding.
    With q̇ = 0 the still joint's fit is i = τ/k + c, the least squares of those two columns alone."""
    from baseparam.cli import _controller_gains
    from baseparam.identification.trajectory import parse_column_map
    S = 400
    t = np.round((np.arange(S) * 0.0137 + 0.1) * 1e9) / 1e9
    q = np.column_stack([np.sin(t), np.full(S, 0.3)])
    tau = np.column_stack([3 * np.cos(2 * t), 20 + 5 * np.sin(3 * t)])            # the still joint holds a load
    current = np.round(tau / [11.7, 9.8] + [0.2, 0.1] * np.sign([np.cos(t), np.zeros(S)]).T - 0.02, 3)
    path = tmp_path / "log.csv"
    np.savetxt(path, np.column_stack([t, q, tau, current]), delimiter=",", fmt="%.9f",
               header="t,q1,q2,tau1,tau2,i1,i2", comments="")
    found = _controller_gains([path], parse_column_map("t=0,q=1:3"), "tau=3:5,current=5:7",
                               {"skip_bad_rows": False, "n_dof": 2})
    k, c = np.linalg.lstsq(np.column_stack([tau[:, 1], np.ones(S)]), current[:, 1], rcond=None)[0]
    assert found.gains[1] == pytest.approx(1 / k, rel=1e-9)         # lstsq's round-off with two zero columns
    assert found.friction[1] == pytest.approx([0, 0, c], rel=1e-9, abs=1e-12)
    assert found.gains[0] == pytest.approx(11.7, rel=1e-3)


def test_a_stance_with_the_base_held_still_has_rates_of_exactly_zero():
    """stance_motion derived the base twist from the poses with np.gradient: a base held at a pose off the origin
    moved at ~1e-15 on ns-rounded times, and the joints' velocities from the contact Jacobians with it."""
    robot = bp.load_robot(SPACE)
    S = 12
    from scipy.spatial.transform import Rotation
    position, angles = [0.3, -0.7, 1.1], [0.4, -0.3, 0.2]
    q0 = np.r_[position, Rotation.from_euler("ZYX", angles).as_quat(), np.full(robot.n_dof, 0.3)]
    q, qd, qdd = bp.stance_motion(robot, STAMPS[:S], q0, np.tile(position, (S, 1)), np.tile(angles, (S, 1)),
                                  [bp.Contact(0)])
    assert not qd.any() and not qdd.any()


# --- 2. one refusal of a joint without torque, training or held out ---

def test_a_joint_without_torque_is_refused_in_one_wording_for_training_and_held_out_data():
    """The training check said 'the torque is zero in every sample' of a torque of 1e-170 (its square is 0), the
    held-out check 'zero (or its square is)'; both test Στ² = 0 and now say the same."""
    from conftest import planar_sines
    robot, _, t, q, qd, qdd, tau = planar_sines(8, 300, 0.02)
    faint = tau.copy()
    faint[:, 2] = 1e-170
    good, bad = bp.Trajectory(t, q, tau, source="good.csv"), bp.Trajectory(t, q, faint, source="bad.csv")
    said = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for call in (lambda: bp.identify(robot, bad, preprocessing=None),
                     lambda: bp.identify_logs(robot, [bad], preprocessing=None),
                     lambda: bp.identify(robot, good, validate=bad, preprocessing=None),
                     lambda: bp.identify_logs(robot, [good], validate=[bad], preprocessing=None)):
            with pytest.raises(bp.DataError) as caught:
                call()
            said.append(str(caught.value))
    assert set(said) == {"bad.csv: field tau3: the torque is zero (or its square is) in every sample (a dead sensor "
                         "or a wrong column map?)"}


# --- 3. a URDF's limits apply to the robot it describes ---

def _chain_urdf(path, joints):
    """A serial URDF of (name, type) joints about z, each with its limits."""
    links = "".join(f'<link name="l{k}"><inertial><mass value="1"/><origin xyz="0.1 0 0"/><inertia ixx="0.01" '
                    f'iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>'
                    for k in range(len(joints) + 1))
    chain = "".join(f'<joint name="{name}" type="{kind}"><parent link="l{k}"/><child link="l{k + 1}"/>'
                    f'<origin xyz="0.3 0 0"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" velocity="{k + 2}" '
                    f'effort="50"/></joint>' for k, (name, kind) in enumerate(joints))
    path.write_text(f'<?xml version="1.0"?><robot name="chain">{links}{chain}</robot>', encoding="utf-8")
    return path


def test_a_urdfs_limits_of_other_joints_are_said_or_refused(tmp_path):
    """--limits other.urdf with the robot's joint count but other joint names (said), or other joint types
    (rad on m; refused), was applied joint by joint without a word. A description without joint names (a DH
    table) takes the URDF's limits in order, as documented: the vendor's URDF is where they come from."""
    ours = bp.load_robot(_chain_urdf(tmp_path / "ours.urdf", [("a1", "revolute"), ("a2", "revolute")]))
    other = _chain_urdf(tmp_path / "other.urdf", [("a1", "revolute"), ("b2", "revolute")])
    with pytest.warns(bp.DescriptionWarning, match=r"^.*other\.urdf: joint 2 is 'b2' there, 'a2' in the robot: its "
                                                   r"limits are taken in order$") as said:
        assert bp.motion_limits(ours, other).velocity.tolist() == [2.0, 3.0]
    assert said[0].filename == __file__         # the caller's line, as the package's warnings are located
    same = _chain_urdf(tmp_path / "same.urdf", [("a1", "revolute"), ("a2", "revolute")])
    assert bp.motion_limits(ours, same).velocity.tolist() == [2.0, 3.0]
    dh = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml")
    assert all(j.name is None for j in dh.joints)
    three = _chain_urdf(tmp_path / "three.urdf", [("x", "revolute"), ("y", "revolute"), ("z", "revolute")])
    assert bp.motion_limits(dh, three).velocity.tolist() == [2.0, 3.0, 4.0]
    slider = _chain_urdf(tmp_path / "slider.urdf", [("x", "revolute"), ("y", "prismatic"), ("z", "revolute")])
    with pytest.raises(bp.ArgumentError, match=r"^.*slider\.urdf: joint 2 \('y'\) is prismatic there, revolute in "
                                               r"the robot: not the robot's limits$"):
        bp.motion_limits(dh, slider)
    from click.testing import CliRunner

    from baseparam.cli import main
    res = CliRunner().invoke(main, ["excite", str(ROOT / "robots" / "planar_rrr.yaml"), "--limits", str(slider)])
    assert res.exit_code == 2 and res.output.count("\n") == 1 and "joint 2 ('y') is prismatic" in res.output, \
        res.output


# --- 5. generated code and JSON carry no word a scan for non-finite values finds ---

@pytest.mark.parametrize("robot", ["planar_rrr.yaml", "space_robot.yaml"])
def test_generated_outputs_say_non_finite_not_the_values_names(robot, tmp_path):
    """`equations --python` modules said "overflow to inf and NaN", the exports "NaN or inf": a fuzzer scanning the
    outputs for those values flagged them. Every file of export, equations, find --json and describe --yaml, and what
    they print."""
    import re

    from click.testing import CliRunner

    from baseparam.cli import main
    path = str(ROOT / "robots" / robot)
    runs = [["export", path, "--lang", "c", "--checked", "--out", str(tmp_path / "c")],
            ["export", path, "--lang", "python", "--out", str(tmp_path / "py")],
            ["find", path, "--json", str(tmp_path / "find.json")],
            ["describe", path]]
    if robot == "planar_rrr.yaml":         # a chain's DH table and the closed-form equations of a fixed base
        runs[-1] += ["--yaml", str(tmp_path / "described.yaml")]
        runs.append(["equations", path, "--python", str(tmp_path / "eq.py"), "--json", str(tmp_path / "eq.json"),
                     "--out", str(tmp_path / "eq.md")])
    words = re.compile(r"(?i)\b(?:nan|inf|infinite|infinity)\b")
    for args in runs:
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0 and not words.findall(result.output), result.output
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) == (10 if robot == "planar_rrr.yaml" else 6)
    for p in files:
        assert not words.findall(p.read_text(encoding="utf-8")), (p.name, words.findall(p.read_text("utf-8")))


# --- 6. OpenBLAS under ulimit -v: a MemoryError in Python, not a spin (scipy's) or exit(1) (numpy's) in C ---

def test_scipys_openblas_is_not_loaded_where_its_start_up_would_not_fit():
    """scipy's OpenBLAS (0.3.30) retries its 32 MiB buffer forever inside dlopen where ulimit -v leaves no room for it
    (`identify` under `ulimit -v 400000` spun until killed, py-spy: gotoblas_init → blas_thread_init →
    blas_memory_alloc → alloc_mmap/alloc_malloc); numpy's (0.3.31) ended the process with exit(1) at its first gesv
    ("Memory allocation still failed after 10 retries"). A child leaves itself 80 MiB after numpy: numpy's buffer is
    taken at once, OpenBLAS runs on one thread, and importing scipy's linear algebra is a MemoryError."""
    import subprocess
    import sys
    child = """
import os, resource
import numpy
from baseparam import _blas, _entry, _memory
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
resource.setrlimit(resource.RLIMIT_AS, (_memory._statm_bytes(0) + 80 * 2**20, hard))
assert _entry._address_limited()
_blas.within_address_limit()
print(os.environ["OPENBLAS_NUM_THREADS"])
try:
    import scipy.linalg
except MemoryError as exc:
    print(exc)
"""
    env = {k: v for k, v in __import__("os").environ.items() if k != "OPENBLAS_NUM_THREADS"}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    threads, said = done.stdout.splitlines()
    assert threads == "1"
    assert said.startswith("loading scipy's OpenBLAS (importing scipy) needs about 100 MiB of address space, "), said


def test_numpys_own_start_up_is_not_loaded_where_it_would_not_fit():
    """numpy's import loads its OpenBLAS (82 MiB of address space on one thread): with less room, it ended the process
    with OpenBLAS's exit(1) ("Memory allocation still failed after 10 retries": `baseparam describe` under
    `ulimit -v 100000`, exit status 1), or a SystemError. A child leaves itself 50 MiB before numpy is loaded: the
    guard refuses numpy's import with a MemoryError (exit 2 from the command), numpy not loaded."""
    import subprocess
    import sys
    child = """
import os, resource, sys
from baseparam import _blas
assert "numpy" not in sys.modules
size = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
resource.setrlimit(resource.RLIMIT_AS, (size + 50 * 2**20, hard))
try:
    _blas.within_address_limit()
except MemoryError as exc:
    print(exc)
print("numpy" in sys.modules)
"""
    env = {k: v for k, v in __import__("os").environ.items() if k != "OPENBLAS_NUM_THREADS"}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stderr == "", (done.returncode, done.stderr[-500:])
    said, loaded = done.stdout.splitlines()
    assert said.startswith("loading numpy and its OpenBLAS needs about 90 MiB of address space, "), said
    assert loaded == "False"


def test_scipys_openblas_is_told_from_numpys_by_their_folders_not_by_the_word_numpy(monkeypatch):
    """The guard's finder stops looking at scipy's imports once scipy's OpenBLAS is mapped; it told numpy's copy by
    'numpy' anywhere in the mapped path, so in a site-packages under ~/numpy-work/.venv scipy's copy never counted as
    loaded, and every later scipy import under ulimit -v was held to the room of a load that had happened."""
    import io

    import numpy

    from baseparam import _blas
    site = "/home/u/numpy-work/.venv/lib/python3.11/site-packages"
    monkeypatch.setattr(numpy, "__file__", f"{site}/numpy/__init__.py")
    maps = [f"7f00-7f10 r-xp 00000000 08:01 11 {site}/numpy.libs/libscipy_openblas64_-32a4b2a6.so\n",
            f"7f10-7f20 r-xp 00000000 08:01 12 {site}/numpy/_core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so\n"]
    monkeypatch.setattr(_blas, "open", lambda *args, **kwargs: io.StringIO("".join(maps)), raising=False)
    assert not _blas._scipy_blas_loaded()           # numpy's own copy only
    maps.append(f"7f20-7f30 r-xp 00000000 08:01 13 {site}/scipy.libs/libscipy_openblas-6cdc3b4a.so\n")
    assert _blas._scipy_blas_loaded()
    maps[-1] = "7f20-7f30 r-xp 00000000 08:01 13 /usr/lib/x86_64-linux-gnu/libopenblas.so.0\n"
    assert _blas._scipy_blas_loaded()               # a system OpenBLAS (shared by both)
