"""Round 18, readers and exports (set "lread"): what a file we write must do in the program that reads it."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import baseparam as bp

mujoco = pytest.importorskip("mujoco")


def _urdf(links):
    """A serial chain of revolute joints; ``links`` gives per moving link its ``<inertial>`` text or ''."""
    parts = ['<robot name="r">', '<link name="base"/>']
    parent = "base"
    for k, inertial in enumerate(links):
        parts += [f'<link name="l{k}">{inertial}</link>',
                  f'<joint name="j{k}" type="revolute"><parent link="{parent}"/><child link="l{k}"/>'
                  f'<origin xyz="0.1 0 0.2" rpy="0.3 0 0"/><axis xyz="0 {k % 2} {1 - k % 2}"/>'
                  '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>']
        parent = f"l{k}"
    return "\n".join(parts + ["</robot>"])


def _inertial(mass, ixx, iyy, izz):
    return (f'<inertial><origin xyz="0.01 0.02 0.03"/><mass value="{mass}"/><inertia ixx="{ixx}" iyy="{iyy}" '
            f'izz="{izz}" ixy="0" ixz="0" iyz="0"/></inertial>')


def _mjcf(tmp_path, text):
    from baseparam.model.mjcf_writer import robot_to_mjcf

    path = tmp_path / "r.urdf"
    path.write_text(text, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = bp.load_robot(path)
    bodies = [(j.inertia.mass, j.inertia.com, j.inertia.inertia) for j in robot.joints]
    return robot_to_mjcf(robot, bodies, urdf_folder=str(tmp_path))


GOOD = _inertial(1.5, 0.02, 0.03, 0.04)


@pytest.mark.parametrize("bad, words", [
    ("", r"link 'l1' has mass 0\.0 kg .*MuJoCo refuses a moving body"),                    # no <inertial>
    (_inertial(0, 0, 0, 0), r"link 'l1' has mass 0\.0 kg"),
    (_inertial(1e-16, 0.01, 0.01, 0.01), r"link 'l1' has mass 1e-16 kg"),
    (_inertial(1.0, 0.01, 0.0, 0.01), r"link 'l1' .* principal moments 0\.0 0\.01 0\.01"),
    (_inertial(1.0, 0.01, 0.01, 0.05), r"link 'l1' .* break A \+ B >= C")])
def test_mjcf_of_a_body_mujoco_refuses_is_refused_naming_the_link(tmp_path, bad, words):
    """``robot_to_mjcf`` wrote a zero-mass moving body for a URDF link without ``<inertial>`` (11 of 40 random
    URDFs), and MuJoCo refused the file ("mass and inertia of moving bodies must be larger than mjMINVAL"): now one
    line naming the link. MuJoCo itself is the judge that the refused body is one it refuses."""
    text = _urdf([GOOD, bad, GOOD])
    with pytest.raises(bp.ArgumentError, match=words) as caught:
        _mjcf(tmp_path, text)
    assert "\n" not in str(caught.value)
    # the same chain with a mass-less, moment-less link as MuJoCo reads it: the same refusal there
    from baseparam.model.mjcf_writer import robot_to_mjcf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = bp.load_robot(tmp_path / "r.urdf")
    bodies = [(j.inertia.mass, j.inertia.com, j.inertia.inertia) for j in robot.joints]
    fine = [b if k != 1 else (1.0, np.zeros(3), 0.01 * np.eye(3)) for k, b in enumerate(bodies)]
    mujoco.MjModel.from_xml_string(robot_to_mjcf(robot, fine))                     # loads once link 1 is real
    import baseparam.model.mjcf_writer as writer
    check, writer._loadable_moments = writer._loadable_moments, lambda *a: np.asarray(a[3])
    try:
        unchecked = robot_to_mjcf(robot, bodies)
    finally:
        writer._loadable_moments = check
    with pytest.raises(ValueError, match="mjMINVAL|A \\+ B >= C"):
        mujoco.MjModel.from_xml_string(unchecked)


def test_every_mjcf_written_from_random_urdfs_loads_in_mujoco(tmp_path):
    """Random chains, some links without ``<inertial>`` or with round-off-thin bodies: each file the writer
    produces loads in MuJoCo with the masses given; every other one is refused in one line naming a link."""
    rng = np.random.default_rng(18)
    written = refused = 0
    for _ in range(40):
        links, masses = [], []
        for _ in range(int(rng.integers(1, 5))):
            choice = rng.random()
            if choice < 0.15:
                links.append("")
                masses.append(0.0)
            else:
                a, b = rng.uniform(1e-3, 0.1, 2)
                c = a + b if choice < 0.25 else rng.uniform(abs(a - b) + 1e-4, a + b)     # thin rod / disc: A+B=C
                masses.append(float(rng.uniform(0.1, 5)))
                links.append(_inertial(masses[-1], a, b, c))
        try:
            text = _mjcf(tmp_path, _urdf(links))
        except bp.ArgumentError as exc:
            assert "\n" not in str(exc) and "link 'l" in str(exc), str(exc)
            refused += 1
            continue
        model = mujoco.MjModel.from_xml_string(text)
        np.testing.assert_array_equal(model.body_mass[1:], masses)
        written += 1
    assert written > 10 and refused > 3, (written, refused)


def test_mjcf_of_rotated_thin_discs_loads_in_mujoco(tmp_path):
    """A thin disc has principal moments A + B = C; rotated, numpy's principal axes miss that by round-off, and
    MuJoCo (which compares exactly) refused 4 files in 10 ("inertia must satisfy A + B >= C"). Now the written
    moments meet it, within round-off of the disc's, and a body clear of the edge is written bit for bit."""
    from baseparam.model.mjcf_writer import robot_to_mjcf

    _mjcf(tmp_path, _urdf([GOOD]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = bp.load_robot(tmp_path / "r.urdf")
    rng = np.random.default_rng(7)
    for _ in range(30):
        a, b = rng.uniform(1e-3, 0.1, 2)
        R = np.linalg.qr(rng.normal(size=(3, 3)))[0]
        disc = R @ np.diag([a, b, a + b]) @ R.T
        model = mujoco.MjModel.from_xml_string(robot_to_mjcf(robot, [(2.0, np.zeros(3), disc)]))
        np.testing.assert_allclose(np.sort(model.body_inertia[1]), np.sort([a, b, a + b]), rtol=1e-12)
    solid = np.diag([0.02, 0.03, 0.04])
    text = robot_to_mjcf(robot, [(2.0, np.zeros(3), solid)])
    assert 'diaginertia="0.02 0.03 0.04"' in text


def test_yaml_non_specific_tag_makes_a_string_as_the_spec_says(tmp_path):
    """YAML 1.1/1.2: a scalar with the non-specific tag ``!`` is a string (``! 90`` is the text "90"); PyYAML
    resolved it as if untagged and the joint got alpha = 90. Now the number field refuses the text, as for
    ``'90'``; an untagged or ``!!float`` 90 still reads as 90."""
    head = "name: r\nunits: {length: m, angle: deg}\njoints:\n"
    for alpha, expected in (("! 90", None), ("'90'", None), ("90", 90.0), ("!!float 90", 90.0)):
        path = tmp_path / "r.yaml"
        path.write_text(head + f"  - {{type: revolute, alpha: {alpha}, a: 0.5, d: 0}}\n", encoding="utf-8")
        if expected is None:
            with pytest.raises(bp.RobotDescriptionError, match=r"joints\[1\]\.alpha: expected a finite number, "
                                                                r"got '90'"):
                bp.load_robot(path)
        else:
            assert bp.load_robot(path).joints[0].alpha == expected
    path.write_text(head + "  - ! {type: revolute, alpha: 90, a: 0.5, d: 0}\n", encoding="utf-8")
    assert bp.load_robot(path).joints[0].alpha == 90.0        # '!' on a mapping: still the mapping


def test_full_width_digits_get_a_true_hint(tmp_path):
    """``alpha: ９０`` (full-width digits, unquoted) was told "a quoted string: write the number without quotes";
    float() reads those digits, YAML does not: the hint now says to write 0-9."""
    path = tmp_path / "r.yaml"
    for text in ("９０", "٩٠"):
        path.write_text("name: r\nunits: {length: m, angle: deg}\njoints:\n"
                        f"  - {{type: revolute, alpha: {text}, a: 0.5, d: 0}}\n", encoding="utf-8")
        with pytest.raises(bp.RobotDescriptionError, match=r"alpha: expected a finite number, got .*\(digits "
                                                            r"other than 0-9 are text in YAML: write the number "
                                                            r"with 0-9\)$"):
            bp.load_robot(path)


def test_an_hdf5_enumeration_is_refused_not_read_as_its_codes(tmp_path):
    """An HDF5 enum dataset (labels stored as integer codes) was read as its codes, numbers that measure
    nothing: now one line naming the key and its labels. A plain integer dataset of the same codes still reads."""
    import h5py
    t = np.arange(40) * 0.01
    q = np.tile([0, 1, 2], (40, 1)).astype(np.int8)
    tau = np.zeros((40, 3))
    path = tmp_path / "log.h5"
    for enum in (True, False):
        with h5py.File(path, "w") as f:
            f["t"], f["tau"] = t, tau
            dtype = h5py.enum_dtype({"LOW": 0, "MID": 1, "HIGH": 2}, basetype="i1") if enum else np.int8
            f.create_dataset("q", data=q, dtype=dtype)
        if enum:
            with pytest.raises(bp.DataError, match=r"log\.h5: key q: an HDF5 enumeration \(labels .*HIGH.*\), "
                                                   r"not numbers$"):
                bp.read_trajectory(path)
        else:
            np.testing.assert_array_equal(bp.read_trajectory(path).q, q)
