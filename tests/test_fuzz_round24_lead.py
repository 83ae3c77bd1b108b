"""Fuzz round 24 (issue 28), the lead's own finds.

- ``identify --scheduler ucx://HOST:PORT``: this Dask's UCX comm is a stub without the separate UCX package (its
  connector an abstract class); it was said as a server that "did not answer as a Dask scheduler", blaming a server
  to which nothing had been sent. Now the protocol is named as one this installation cannot use.
"""
import pytest
from click.testing import CliRunner

from conftest import ROOT

PLANAR = str(ROOT / "robots" / "planar_rrr.yaml")


def _ucx_unusable():
    distributed = pytest.importorskip("distributed")
    from distributed.comm.registry import get_backend
    try:
        get_backend("ucx").get_connector()
    except (TypeError, ImportError, RuntimeError):
        return distributed
    pytest.skip("this Dask can connect over ucx://")


def _log(tmp_path):
    log = tmp_path / "log.csv"
    log.write_text("t,q1,q2,q3,tau1,tau2,tau3\n" + "".join(f"{k * 0.01},{k % 3},{k % 5},{k % 7},1,2,3\n"
                                                           for k in range(50)))
    return str(log)


@pytest.mark.parametrize("scheme", ["ucx", "UCX"])
def test_a_protocol_this_dask_cannot_use_is_named_not_the_server(tmp_path, scheme):
    _ucx_unusable()
    from baseparam.cli import main
    log = _log(tmp_path)
    result = CliRunner().invoke(main, ["identify", PLANAR, log, log, "--scheduler", f"{scheme}://127.0.0.1:1"])
    assert result.exit_code == 2, result.output
    line = result.output.strip()
    assert "\n" not in line and "cannot connect over ucx://" in line and "did not answer" not in line, line


def test_the_library_raises_its_settings_error_for_it(tmp_path):
    _ucx_unusable()
    import baseparam as bp
    from baseparam.errors import SettingsError
    robot = bp.load_robot(PLANAR)
    log = _log(tmp_path)
    with pytest.raises(SettingsError, match=r"^scheduler: 'ucx://127\.0\.0\.1:1': this installation of Dask"):
        bp.identify_logs(robot, [log, log], scheduler="ucx://127.0.0.1:1")


# -- the vendors' inertia says whether it was measured ---------------------------------------------------------------

def test_the_vendors_inertia_says_when_the_data_did_not_see_all_of_it():
    """Behind fewer than three wrist joints the data see fewer than ten payload parameters: the vendors' formats
    still carry a full inertia (the fit's fill of the directions not seen), which a controller would load as
    measured; the JSON's ``vendor_inertia`` and the summary say so where formats are given."""
    import numpy as np

    import baseparam as bp
    from baseparam.identification.payload import identify_payload
    from test_payload import _multisine
    robot = bp.load_robot(PLANAR)          # no bodies: the torques are the payload's alone (model mode)
    t, q, qd, qdd = _multisine(robot.n_dof)
    tau = np.random.default_rng(1).normal(size=q.shape)
    result = identify_payload(robot, bp.Trajectory(t=t, q=q, tau=tau))
    assert result.rank < 10
    # no vendors' formats here (the mass not told from none, the centre's z unseen): vendor_inertia null (rv5); the
    # values with formats given: test_review_round24_rv5.py
    assert result.to_dict()["vendors"] is None and result.to_dict()["vendor_inertia"] is None
    # nor does the summary speak of the formats' inertia (rv5): only the combinations are named
    assert "only" in result.summary() and "not as measured" not in result.summary()


# -- a payload robot written as a new URDF says what the URDF leaves out --------------------------------------------

def test_a_new_urdf_of_a_description_with_friction_values_says_it_leaves_them_out():
    """``robot_text(yaml_robot, 'urdf')`` dropped the description's friction values with no word: the robot read
    back had other torques (fzapi3's find). A description without values (kuka_lwr4.yaml: declared, no values) writes
    without a warning."""
    import warnings

    import numpy as np

    import baseparam as bp
    from baseparam.errors import DataWarning
    from test_fuzz_round23_lead import _result
    result = _result(np.diag([0.004, 0.005, 0.006]))
    cad = bp.load_robot(ROOT / "robots" / "kuka_lwr4_cad.yaml")
    with pytest.warns(DataWarning, match=r"^payload: the URDF written from .* leaves out its friction"):
        text = result.robot_text(cad, "urdf")
    assert text.startswith("<?xml")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result.robot_text(bp.load_robot(ROOT / "robots" / "kuka_lwr4.yaml"), "urdf")     # declared, no values
        result.robot_text(cad, "yaml")


def test_a_flange_asked_of_something_not_a_robot_is_refused_in_words():
    from baseparam.errors import ArgumentTypeError
    from baseparam.identification.payload_vendors import flange_placement
    with pytest.raises(ArgumentTypeError, match="^robot: expected a baseparam.Robot"):
        flange_placement("x.urdf", "tool0")
