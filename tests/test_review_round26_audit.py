"""Regression audit of round 26: documented behaviour of the resolved issues re-checked on main."""
import pytest

from baseparam import read_trajectory
from baseparam.errors import DataError


def test_stray_carriage_return_is_not_called_a_decimal_comma(tmp_path):
    # issue 11 item 9: a stray \r inside a line is a damaged field on the right line; the message must say
    # so, not advise against decimal commas (the field's text without the \r is a plain number)
    rows = ["t,q1,tau1"] + [f"{0.01 * i:.2f},{0.1 * i:.1f},1.0" for i in range(20)]
    rows[5] = "0.04,0.4\r,1.0"
    path = tmp_path / "cr.csv"
    path.write_bytes(("\n".join(rows) + "\n").encode())
    with pytest.raises(DataError, match=r"cr\.csv: line 6: field q1: not a number") as info:
        read_trajectory(path)
    message = str(info.value)
    assert "decimal comma" not in message
    assert "carriage return" in message


def test_the_c_kernel_flags_a_q_ddot_beyond_the_bound_itself():
    """``ForwardDynamics``' one-sample call: the C kernel's ``fd_packed`` flags what Python must look at, as the
    kernel's comment asks, not a scan in Python on every call, which had made the call 0.45 µs (30 %) slower and
    slower than ``pin.aba`` (issue 22's one-sample target; CPU time, 1.46 → 1.90 µs on the iiwa): 1 for a q̈ not
    finite, 2 + k for joint k's pivot of round-off (M(q) singular: the coaxial joints' second), -1 for a q̈ beyond
    ABSURD with regular pivots (τ of 1e12 on a regular robot), 0 otherwise."""
    import numpy as np

    import baseparam as bp
    from baseparam.dynamics import _native
    from test_fuzz_round26_fzapi5 import COAXIAL, WITH_MASS
    if _native.compiler() is None:
        pytest.skip("no C compiler here")
    q, qd, tau = np.random.default_rng(0).uniform(-2, 2, (3, 3))
    for urdf, scale, flags in ((COAXIAL, 1.0, {3, 4}), (WITH_MASS, 1.0, {0}), (WITH_MASS, 1e12, {-1})):
        fd = bp.ForwardDynamics(bp.Model(bp.parse_robot(urdf)))
        lib = fd.kernel.native()
        block = np.concatenate([q, qd, scale * tau, np.zeros(3 + fd.kernel.n_pivots), fd.p])
        assert lib.fd_packed(block.ctypes.data) in flags
    block[-len(fd.p):] = np.nan
    assert lib.fd_packed(block.ctypes.data) == 1
