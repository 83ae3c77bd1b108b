"""rv7's review of round 21's lead commits, each finding with a test that fails before its fix."""
import pytest

import baseparam as bp

_URDF = """<?xml version='1.0' encoding='{codec}'?>
<robot name="アーム">
  <link name="base"/>
  <link name="l1"><visual><geometry><mesh filename="package://arm/meshes/l1.stl"/></geometry></visual>
    <inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>
"""


@pytest.mark.parametrize("codec", ["shift_jis_2004", "shift_jisx0213", "Shift_JIS", "cp864", "euc_jis_2004"])
def test_a_urdf_in_a_real_encoding_reading_some_ascii_otherwise_is_read(tmp_path, codec):
    """bae6a34 refused every encoding whose reading of any printable ASCII byte differs: Shift_JIS-2004 and
    Shift_JISX0213 (0x5C a yen sign, 0x7E an overline) and IBM864 (0x25 the Arabic percent sign) — read before, and
    by iconv (libxml2's reader) as Python reads them. Only codecs that read several ASCII bytes as one character
    (escaping codecs) or XML's markup otherwise are refused; a file in these encodings reads again."""
    name = "arm" if codec == "cp864" else "アーム"        # IBM864 has no katakana
    path = tmp_path / "arm.urdf"
    path.write_bytes(_URDF.format(codec=codec).replace("アーム", name).encode(codec))
    robot = bp.load_robot(path)
    assert robot.n_dof == 1 and name in robot.source


@pytest.mark.parametrize("codec", ["unicode_escape", "raw_unicode_escape", "utf-7", "undefined", "punycode"])
def test_escaping_codecs_still_refused(tmp_path, codec):
    """The refusal bae6a34 meant stays: codecs reading several ASCII bytes as one character, or none at all."""
    from baseparam.errors import RobotDescriptionError
    path = tmp_path / "arm.urdf"
    path.write_bytes(f"<?xml version='1.0' encoding='{codec}'?>\n<robot name='a'/>".encode())
    with pytest.raises(RobotDescriptionError, match=f"encoding '{codec}', which does not read ASCII as ASCII"):
        bp.load_robot(path)


def test_a_fourier_series_hash_does_not_follow_the_callers_array():
    """bb0e303 made a FourierSeries hash by value, but it kept the caller's arrays, writeable: a change to them
    afterwards changed the frozen series (past its finiteness check) and its hash, so a set or dict holding it no
    longer found it. The coefficients are now copied read-only (as Inertia's are), also through pickle."""
    import pickle

    import numpy as np
    a = np.ones((2, 3))
    series = bp.FourierSeries(2.0, np.zeros(2), a, np.zeros((2, 3)))
    held = {series}
    a[0, 0] = np.nan
    assert series in held and np.isfinite(series.a).all()
    for made in (series, pickle.loads(pickle.dumps(series))):
        assert made == series and hash(made) == hash(series)
        with pytest.raises(ValueError, match="read-only"):
            made.a[0, 0] = 5.0
