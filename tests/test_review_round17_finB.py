"""Review of stop 42's merged change (finB): what the merge of round seventeen left."""
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Writes an NPZ log whose joint_names member is a pickled object array whose state numpy trusts, and reads it with
# joints= (the order check unpickles the names), in a child process: a segmentation fault there does not end the
# test run, and its address space is bounded, so a claim of 10⁹ objects cannot take 8 GB of the machine.
CHILD = textwrap.dedent("""
    import io, pickle, resource, sys, zipfile
    import numpy as np
    try:
        from numpy._core.multiarray import _reconstruct
    except ImportError:
        from numpy.core.multiarray import _reconstruct
    import baseparam as bp

    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    class Claim:
        def __init__(self, count, items):
            self.count, self.items = count, items

        def __reduce__(self):
            return (_reconstruct, (np.ndarray, (0,), b"b"), (1, (self.count,), np.dtype("O"), False, self.items))

    t = np.linspace(0.0, 1.0, 50)
    q = np.zeros((50, 3))
    for k, claim in enumerate((Claim(3, ["joint1"]), Claim(10 ** 9, ["joint1"]))):
        path = f"{sys.argv[1]}/log{k}.npz"
        np.savez(path, t=t, q=q, tau=q)
        header = io.BytesIO()
        np.lib.format.write_array_header_1_0(header, {"descr": "|O", "fortran_order": False, "shape": (3,)})
        with zipfile.ZipFile(path, "a") as archive:
            archive.writestr("joint_names.npy", header.getvalue() + pickle.dumps(claim, protocol=4))
        try:
            bp.read_trajectory(path, joints=["joint1", "joint2", "joint3"])
            print("read")
        except bp.errors.DataError as exc:
            print(exc)
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS bounds the child's memory on Linux")
def test_a_pickled_joint_names_state_claiming_more_names_than_it_holds_is_refused_not_a_crash(tmp_path):
    """The restricted unpickler of an NPZ log's pickled ``joint_names`` (round seventeen) let numpy build any array
    state the pickle gave: an object array of 3 names holding one (pointers left unset) was a segmentation fault
    when the names were read, and a claim of 10⁹ objects allocated 8 GB before anything was checked."""
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    run = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path)], capture_output=True, text=True, env=env,
                         timeout=120)
    assert run.returncode == 0, (run.returncode, run.stderr[-2000:])
    short, huge = run.stdout.splitlines()
    assert "key joint_names" in short and "3 elements holding 1" in short, short
    assert "key joint_names" in huge and "shape (1000000000,)" in huge, huge
