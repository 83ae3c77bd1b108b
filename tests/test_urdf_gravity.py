"""A URDF has no gravity element: its readers take (0, 0, -9.81). A robot whose gravity differs (the planar arm's
is along -y) is refused in one line by `identify --urdf` (IdentificationResult.to_urdf) as by the payload's
robot_text(fmt='urdf'), instead of a file with other dynamics (issue 28)."""
import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from baseparam.errors import SettingsError
from baseparam.model.urdf_writer import check_urdf_gravity, robot_to_urdf
from conftest import ROOT, planar_arm


def test_urdf_gravity_check():
    with pytest.raises(SettingsError, match=r"gravity \[0\.0, -9\.81, 0\.0\] cannot be written in a URDF"):
        check_urdf_gravity(planar_arm())
    ur5 = bp.load_robot(ROOT / "robots" / "ur5.yaml")
    check_urdf_gravity(ur5)
    assert "<robot" in robot_to_urdf(ur5, [(1.0, np.zeros(3), np.eye(3) * 0.01)] * ur5.n_dof)


def test_identify_urdf_refuses_other_gravity(tmp_path):
    robot = planar_arm()
    t = np.arange(400) / 100.0
    w = 2 * np.pi * 0.25 * np.arange(1, 4)
    q = 0.4 * np.sin(t[:, None] * w + np.arange(3))
    qd = 0.4 * w * np.cos(t[:, None] * w + np.arange(3))
    qdd = -0.4 * w ** 2 * np.sin(t[:, None] * w + np.arange(3))
    tau = bp.inverse_dynamics(bp.Model(robot), q, qd, qdd)
    log = tmp_path / "log.npz"
    np.savez(log, t=t, q=q, qd=qd, qdd=qdd, tau=tau)
    out = tmp_path / "out.urdf"
    result = CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "planar_rrr.yaml"), str(log), "--method",
                                       "consistent", "--urdf", str(out)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output, result.output
    assert "cannot be written in a URDF" in result.output.splitlines()[-1], result.output
    assert not out.exists()
