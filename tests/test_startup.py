"""Start-up: what ``import baseparam`` and the ``baseparam`` command load, in a fresh interpreter.

Heavy modules (scipy.signal, pandas, matplotlib, h5py, …) are imported where they are used, so
that ``baseparam --help`` starts at once and ``baseparam find`` loads only what finding needs.
These tests check which modules are loaded, never how long it takes: timings wander on a shared
machine, and ``bench/bench_startup.py`` prints them.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Runs ``baseparam ARGS`` as its console script does, then prints the loaded module names.
RUN = """
import json, sys
code = 0
if len(sys.argv) > 1:
    from baseparam.cli import main
    sys.argv[0] = "baseparam"
    try:
        main()
    except SystemExit as exc:
        code = exc.code or 0
else:
    import baseparam
print("\\n" + json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""

HEAVY = ("matplotlib", "pandas", "scipy.signal", "h5py", "sympy", "tqdm")


def _loaded(*args, code=None, cwd=ROOT):
    """(exit code, set of module names) after ``baseparam ARGS`` (or ``import baseparam`` without
    ARGS, or ``code``) in a fresh interpreter that imports this checkout."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    env.pop("MPLBACKEND", None)
    script = RUN if code is None else code + "\nimport json, sys\nprint('\\n' + json.dumps({'code': 0, " \
                                              "'modules': sorted(sys.modules)}))"
    done = subprocess.run([sys.executable, "-c", script, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result["code"], set(result["modules"])


def _under(modules, names):
    """The names among ``names`` loaded as packages or modules (``scipy`` also by ``scipy.x``)."""
    return sorted(n for n in names if n in modules)


def test_import_baseparam_loads_no_heavy_module():
    _, modules = _loaded()
    assert _under(modules, HEAVY + ("scipy", "numpy", "yaml", "click", "flint")) == []


def test_help_loads_click_only():
    code, modules = _loaded("--help")
    assert code == 0
    assert "click" in modules
    assert _under(modules, HEAVY + ("scipy", "numpy", "yaml", "flint")) == []
    # _warnings: the standard library's warnings and threading only (the run's warning filters, one run at a time)
    light = ("baseparam.cli", "baseparam.errors", "baseparam._lazy", "baseparam._warnings")
    assert not any(m.startswith("baseparam.") and m not in light for m in modules)


def test_find_loads_no_plotting_table_or_storage_module():
    code, modules = _loaded("find", "robots/puma560.yaml")
    assert code == 0
    assert _under(modules, HEAVY) == []
    # nor the dynamics: a base set's regressor and torques import them when called (each process running
    # `find` — the test suite's CLI runs, a user's scripts — pays ~0.08 s less)
    assert not any(m.startswith(("baseparam.identification", "baseparam.codegen", "baseparam.dynamics"))
                   for m in modules)


def test_find_loads_no_scipy():
    # The engine's sparse blocks and its float QR are numpy only: scipy.sparse alone costs ~0.2 s.
    code, modules = _loaded("find", "robots/puma560.yaml")
    assert code == 0
    assert not any(m == "scipy" or m.startswith("scipy.") for m in modules)


@pytest.mark.parametrize("robot, arguments", [("skew7", ""), ("puma560", "'khalil', force_float=True")])
def test_float_path_loads_no_scipy(robot, arguments):
    code = (f"import baseparam as bp; b = bp.find_base_parameters(bp.load_robot('robots/{robot}.yaml'), {arguments})"
            "\nassert not b.exact")
    _, modules = _loaded(code=code)
    assert not any(m == "scipy" or m.startswith("scipy.") for m in modules)


def test_checked_states_do_not_load_numpy_ma():
    """Checking arrays asks whether they are masked without importing numpy.ma (about 50 ms on the first
    call of a process); a masked array is still refused where it hides values (test_api_arrays)."""
    code = ("import numpy as np, baseparam as bp; r = bp.load_robot('robots/puma560.yaml')\n"
            "bp.regressor(bp.Model(r), np.zeros((3, 6)), np.zeros((3, 6)), np.zeros((3, 6)))")
    _, modules = _loaded(code=code)
    assert "numpy.ma" not in modules


@pytest.mark.parametrize("parameters", ["pseudo", "khalil"])
def test_find_loads_no_numpy_ma(parameters):
    """find's exact echelon form picks the Gram matrix's rows and columns with non-zeros by masks: np.unique
    there imported numpy.ma (about 10 ms of CPU, more of wall time, on every find of an exact robot)."""
    code, modules = _loaded("find", str(ROOT / "robots/puma560.yaml"), "--parameters", parameters)
    assert code == 0 and "numpy.ma" not in modules


def test_find_in_floats_loads_no_flint():
    """A robot of odd twists runs in floats and their images modulo a prime, in numpy: the rows' independence
    modulo p by FLINT only once something has loaded it (exact runs do), not 25 ms of import for it."""
    code, modules = _loaded("find", str(ROOT / "robots/skew7.yaml"))
    assert code == 0 and "flint" not in modules


def test_find_with_h5_loads_h5py(tmp_path):
    code, modules = _loaded("find", str(ROOT / "robots/puma560.yaml"), "--h5", str(tmp_path / "z.h5"), cwd=tmp_path)
    assert code == 0 and (tmp_path / "z.h5").is_file()
    assert "h5py" in modules                 # the check above would see h5py if find loaded it
    assert _under(modules, ("matplotlib", "pandas", "scipy.signal")) == []


@pytest.mark.parametrize("name", ["read_trajectory", "from_dataframe", "identify", "BaseParameterEstimator", "export"])
def test_library_names_load_no_plotting_or_pandas(name):
    _, modules = _loaded(code=f"import baseparam as bp; bp.{name}")
    assert _under(modules, ("matplotlib", "pandas", "scipy.signal", "h5py", "tqdm")) == []


@pytest.mark.parametrize("name", ["read_trajectory", "from_dataframe", "from_arrays", "Trajectory"])
def test_reading_trajectories_loads_neither_scipy_nor_the_projection(name):
    _, modules = _loaded(code=f"import baseparam as bp; bp.{name}")
    assert _under(modules, ("scipy", "flint", "yaml")) == []
    assert not any(m.startswith("baseparam.projection") for m in modules)


def test_reading_a_log_with_a_delay_loads_no_description_reader(tmp_path):
    """``read_trajectory(path, delay=0.01)`` without a robot shifts τ in time, no model needed: 1980330 moved
    ``identification.delay``'s import of the model package (the YAML reader, the Robot) to its top, and the read
    loaded them (39 modules, ``yaml`` among them) for the robot-based estimate it does not make."""
    log = tmp_path / "log.csv"
    log.write_text("t,q1,q2,qd1,qd2,qdd1,qdd2,tau1,tau2\n"
                   + "".join(f"{k * 0.01:.2f},{k},0,1,0,0,0,1,2\n" for k in range(100)))
    _, modules = _loaded(code=f"import baseparam as bp\nbp.read_trajectory({str(log)!r}, delay=0.01)")
    assert _under(modules, ("yaml", "baseparam.model", "baseparam.model.loading")) == []


def test_loading_a_description_loads_no_joint_model():
    """``load_robot`` of a YAML description reads fields, not the joints' transforms: ``model.checks`` imported
    ``joint_model`` (some 3 ms of dataclasses) at its top for ``near_special``, which only the find path calls."""
    _, modules = _loaded(code=f"import baseparam as bp\nbp.load_robot({str(ROOT / 'robots' / 'ur5.yaml')!r})")
    assert _under(modules, ("baseparam.model.joint_model",)) == []


def test_dynamics_of_a_description_load_neither_the_urdf_reader_nor_the_dh_equivalent():
    """Forward and inverse dynamics of a YAML robot: ``dynamics.tree`` and ``forward_graph`` imported
    ``model.dh_equivalent`` for its two SI readers, and ``_definite``'s import of ``urdf_update`` brought the URDF
    reader ``model.urdf`` (together some 2.5 ms of imports neither path runs)."""
    code = ("import numpy as np\nimport baseparam as bp\n"
            f"robot = bp.load_robot({str(ROOT / 'robots' / 'kuka_lwr4_cad.yaml')!r})\n"
            "model = bp.Model(robot, bp.standard_parameters(robot))\nzero = np.zeros(robot.n_dof)\n"
            "bp.forward_dynamics(model, zero, zero, zero)\nbp.inverse_dynamics(model, zero, zero, zero)")
    _, modules = _loaded(code=code)
    assert "baseparam.dynamics.forward" in modules
    assert _under(modules, ("baseparam.model.urdf", "baseparam.model.dh_equivalent")) == []
