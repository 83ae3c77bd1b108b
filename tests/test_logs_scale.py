"""Many logs, each reduced on its own (issue 23, item 3): ``bp.identify_logs`` and ``identify FILES… --workers N
--scheduler ADDRESS``. Checked against the in-memory fit (``bp.identify`` on the same files), against
``validate`` of in-memory fits for the per-log and leave-one-log-out figures, and a real local Dask
cluster started here, outside the package."""
import json
import os
import warnings

import h5py
import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from conftest import ROOT, planar_arm, stderr_on_a_terminal

# (format, samples): logs of different lengths, one of each plain format
LOGS = [("csv", 900), ("npz", 1400), ("h5", 1100), ("npz", 1700)]
TIGHT = 1e-10
# short simulated logs with 3 % noise leave the friction of some joints loosely determined: said, not tested here
pytestmark = pytest.mark.filterwarnings("ignore::baseparam.ExcitationWarning")
# what a Dask nanny writes into the environment of the process it runs in (distributed.nanny.pre-spawn-environ)
NANNY = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "MALLOC_TRIM_THRESHOLD_", "PYTHONHASHSEED")


@pytest.fixture(autouse=True)
def environment_restored():
    """A LocalCluster made here runs its nannies in this process, and they set OMP_NUM_THREADS=1 … in its
    environment for good: put it back, so later tests (and their subprocesses) run as they would alone."""
    before = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(before)


@pytest.fixture(scope="module")
def cluster():
    """One real LocalCluster (two worker processes) for the tests that use one: each test starting its own cost two
    worker processes more, each importing baseparam (~4 s of the suite). The variables its nannies set for their
    workers (NANNY) are taken back once it is up, as each test's own cluster left them for the rest of that test;
    the rest of its environment (__DASK_PARENT_PID, set by any nanny) stays until the module ends."""
    distributed = pytest.importorskip("distributed")
    before = dict(os.environ)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                 # the cluster's own chatter (ports)
        # its HTTP server on a free port (":0"), not the default 8787, which the library's own cluster of a test
        # (scheduler="local") then takes without a "Port 8787 is already in use" warning
        local = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0")
    for name in NANNY:
        os.environ.pop(name, None)
        if name in before:
            os.environ[name] = before[name]
    try:
        yield local
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")             # (shutdown)
            local.close()
        os.environ.clear()
        os.environ.update(before)


def simulated(robot, rng, n_samples, h=0.01):
    """An exciting motion of the planar arm (sums of sines) with Newton–Euler torques plus 3 % noise."""
    t = np.arange(n_samples) * h
    w = 2 * np.pi * 0.15 * np.arange(1, 5)
    a = rng.uniform(0.3, 0.8, (3, 4)) / w
    phi = rng.uniform(0, 2 * np.pi, (3, 4))
    arg = w[None, :, None] * t[None, None, :] + phi[:, :, None]
    q = (a[:, :, None] * np.sin(arg)).sum(axis=1).T
    qd = (a[:, :, None] * w[None, :, None] * np.cos(arg)).sum(axis=1).T
    qdd = -(a[:, :, None] * w[None, :, None] ** 2 * np.sin(arg)).sum(axis=1).T
    tau = bp.inverse_dynamics(bp.Model(robot), q, qd, qdd)
    return t, q, tau + rng.normal(0, 0.03, tau.shape) * np.sqrt((tau ** 2).mean(axis=0))


def write(path, t, q, tau):
    if path.suffix == ".csv":
        header = ",".join(["t"] + [f"q{k}" for k in (1, 2, 3)] + [f"tau{k}" for k in (1, 2, 3)])
        np.savetxt(path, np.column_stack([t, q, tau]), delimiter=",", header=header, comments="", fmt="%.17g")
    elif path.suffix == ".npz":
        np.savez(path, t=t, q=q, tau=tau)
    else:
        with h5py.File(path, "w") as f:
            f["t"], f["q"], f["tau"] = t, q, tau


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    robot = planar_arm()
    folder = tmp_path_factory.mktemp("logs")
    rng = np.random.default_rng(23)
    paths = []
    for k, (ext, n) in enumerate(LOGS):
        path = folder / f"run{k}.{ext}"
        write(path, *simulated(robot, rng, n))
        paths.append(str(path))
    return robot, bp.find_base_parameters(robot), paths


def close(a, b, tol=TIGHT):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return np.abs(a - b).max() <= tol * max(np.abs(b).max(), 1e-300)


def same_fit(a, b, tol=TIGHT):
    """Estimates, statistics and training errors of two Identification results agree to ``tol``."""
    ea, eb = a.estimator, b.estimator
    assert ea.n_samples_ == eb.n_samples_
    for name in ("coef_", "std_", "sigma_", "rel_std_percent_"):
        assert close(getattr(ea, name), getattr(eb, name), tol), name
    assert abs(ea.condition_number_scaled_ / eb.condition_number_scaled_ - 1) <= tol
    assert abs(ea.correlation_factor_ / eb.correlation_factor_ - 1) <= tol
    assert close(a.train.rmse, b.train.rmse, 1e-8)           # from sums here, from the samples in memory


@pytest.mark.parametrize("method", ["ols", "wls"])
def test_streamed_fit_equals_the_in_memory_fit(logs, method):
    robot, base, paths = logs
    memory = bp.identify(robot, paths[:3], validate=paths[3], method=method, base=base)
    streamed = bp.identify_logs(robot, paths[:3], validate=paths[3], method=method, base=base)
    same_fit(streamed, memory)
    assert streamed.validation.n_samples == memory.validation.n_samples
    assert close(streamed.validation.rmse, memory.validation.rmse, 1e-8)
    memory = bp.identify(robot, paths, method=method, base=base)
    streamed = bp.identify_logs(robot, paths, method=method, base=base)
    same_fit(streamed, memory)
    assert streamed.train.n_samples == memory.train.n_samples
    assert [log.source for log in streamed.logs] == paths
    assert sum(log.n_samples for log in streamed.logs) == memory.train.n_samples
    # the figures of one log are those of the in-memory estimator on that log alone
    for log, path in zip(streamed.logs, paths):
        alone = memory.estimator.validate(path)
        assert log.n_samples == alone.n_samples
        assert close(log.train.rmse, alone.rmse, 1e-8) and close(log.train.nrmse_percent, alone.nrmse_percent, 1e-8)
    doc = streamed.to_dict()
    assert [d["source"] for d in doc["logs"]] == paths and doc["logs"][0]["held_out"]["n_samples"] > 0


def test_leave_one_log_out_is_the_fit_of_the_others(logs):
    robot, base, paths = logs
    result = bp.identify_logs(robot, paths, method="wls", base=base)
    for k, log in enumerate(result.logs):
        others = bp.identify(robot, paths[:k] + paths[k + 1:], method="wls", base=base)
        held = others.estimator.validate(paths[k])
        assert log.held_out.n_samples == held.n_samples
        assert close(log.held_out.rmse, held.rmse, 1e-8), k
        assert log.held_out.nrmse_pooled_percent > log.train.nrmse_pooled_percent * 0.9   # held out: no better
    text = result.summary()
    assert "per log (4)" in text and "held out" in text and paths[0][-20:] in text


def test_consistent_fit_from_the_reduced_logs(logs):
    robot, base, paths = logs
    options = dict(method="consistent", base=base, prior_weight=0.01)
    memory = bp.identify(robot, paths, **options)
    streamed = bp.identify_logs(robot, paths, **options)
    # the same convex program from statistics equal to round-off: the solver's answer to its own accuracy
    assert close(streamed.estimator.unconstrained_coef_, memory.estimator.unconstrained_coef_)
    assert close(streamed.values, memory.values, 1e-7)
    assert close(streamed.estimator.standard_, memory.estimator.standard_, 1e-6)
    # leave-one-log-out: the consistent fit of the other logs, with the same prior weight
    others = bp.identify(robot, paths[1:], **options)
    held = others.estimator.validate(paths[0])
    assert close(streamed.logs[0].held_out.rmse, held.rmse, 1e-6)


def test_workers_give_the_serial_result(logs):
    robot, base, paths = logs
    serial = bp.identify_logs(robot, paths, method="wls", base=base)
    calls = []
    model = bp.Model(robot)                          # a Model, as the dynamics take it: its base set is pickled
    parallel = bp.identify_logs(model, paths, method="wls", workers=2,
                                progress=lambda done, total: calls.append((done, total)))
    same_fit(parallel, serial)
    for a, b in zip(parallel.logs, serial.logs):
        assert close(a.held_out.rmse, b.held_out.rmse)
    assert calls[0] == (0, 4) and calls[-1] == (4, 4) and [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_globs_and_files_are_expanded_in_order(logs):
    robot, base, paths = logs
    folder = paths[0].rsplit("/", 1)[0]
    by_glob = bp.identify_logs(robot, [f"{folder}/run*.npz", paths[0]], base=base)
    assert [log.source for log in by_glob.logs] == [paths[1], paths[3], paths[0]]
    with pytest.raises(bp.DataError, match="nothing.*no file matches"):
        bp.identify_logs(robot, f"{folder}/nothing*.csv", base=base)


def test_settings_are_refused_in_one_line(logs, monkeypatch):
    robot, base, paths = logs
    with pytest.raises(bp.SettingsError, match="workers"):
        bp.identify_logs(robot, paths, base=base, workers=0)
    with pytest.raises(bp.SettingsError, match="unknown option 'weightin'"):
        bp.identify_logs(robot, paths, base=base, weightin="ols")
    monkeypatch.setitem(__import__("sys").modules, "distributed", None)      # as if it were not installed
    with pytest.raises(bp.SettingsError, match=r"not installed \(pip install 'baseparam\[dask\]'\)"):
        bp.identify_logs(robot, paths, base=base, scheduler="local")


@pytest.mark.parametrize("workers", [1, 2])
def test_auto_friction_scales_are_chosen_as_in_memory(logs, workers):
    """'auto' velocity scales (smooth Coulomb friction): chosen from the logs' products in a first pass, the same
    scales as the in-memory fit's choice from all the samples, and then the same fit."""
    robot, base, paths = logs
    auto = bp.load_robot(ROOT / "robots" / "planar_rrr.yaml", friction=True, friction_model="smooth")
    memory = bp.identify(auto, paths)
    streamed = bp.identify_logs(auto, paths, workers=workers)
    scales = memory.estimator.friction_scales_
    assert sorted(scales) == [1, 2, 3] and streamed.estimator.friction_scales_ == scales
    assert [j.friction_model for j in streamed.estimator.base_.robot.joints] == \
        [j.friction_model for j in memory.estimator.base_.robot.joints]
    same_fit(streamed, memory)


def test_a_damaged_log_names_its_file_from_a_worker(logs, tmp_path):
    robot, base, paths = logs
    bad = tmp_path / "bad.csv"
    lines = open(paths[0]).read().splitlines()
    lines[5] = lines[5].replace(",", ",abc,", 1)
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(bp.DataError, match="bad.csv: line 6"):
        bp.identify_logs(robot, [paths[1], str(bad)], base=base, workers=2)
    # dropped instead: the worker's warning comes back to the caller, naming the file
    with pytest.warns(bp.DataWarning, match="bad.csv.*1 .*line 6"):
        result = bp.identify_logs(robot, [paths[1], str(bad)], base=base, workers=2,
                                  read_options={"skip_bad_rows": True})
    assert result.logs[1].source == str(bad)


def test_logs_in_memory_and_the_reduction_does_not_grow(logs):
    robot, base, paths = logs
    from baseparam.identification.logs import reduce_log
    trajectories = [bp.read_trajectory(p) for p in paths]
    same_fit(bp.identify_logs(robot, trajectories, base=base), bp.identify_logs(robot, paths, base=base), 0.0)
    short, long = (reduce_log(p, base, bp.Preprocessing()) for p in (paths[0], paths[3]))
    assert short.n_samples.sum() < long.n_samples.sum() and short.G.shape == long.G.shape == (1, 3, 19, 19)


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_cli_many_logs_and_workers(logs, tmp_path):
    robot, base, paths = logs
    planar = ROOT / "robots" / "planar_rrr.yaml"
    folder = paths[0].rsplit("/", 1)[0]
    out1, out2 = tmp_path / "one.json", tmp_path / "two.json"
    res = run("identify", planar, f"{folder}/run*", "--json", out1)
    assert res.exit_code == 0, res.output
    assert "per log (4)" in res.output and "held out" in res.output
    res = run("identify", planar, *paths, "--workers", "2", "--json", out2)
    assert res.exit_code == 0, res.output
    one, two = json.loads(out1.read_text()), json.loads(out2.read_text())
    assert one["base"] == two["base"] and one["logs"] == two["logs"]
    memory = bp.identify(bp.load_robot(planar), paths)              # the file's robot (no friction declared)
    assert close([b["value"] for b in one["base"]], memory.values)
    # today's form: one training file, --validate, in memory, no per-log table
    res = run("identify", planar, paths[0], "--validate", paths[1], "--json", tmp_path / "old.json")
    assert res.exit_code == 0 and "per log" not in res.output
    assert "logs" not in json.loads((tmp_path / "old.json").read_text())
    # one-line errors, exit status 2
    for args, fragment in ((["nothing*.npz"], "no file matches"), ([*paths, "--workers", "2", "--plot", "x.png"],
                                                                   "--plot")):
        res = run("identify", planar, *args)
        assert res.exit_code == 2 and fragment in res.output and len(res.output.strip().splitlines()) == 1, res.output


@pytest.mark.skipif(__import__("sys").platform == "win32", reason="pseudo-terminals are POSIX")
def test_progress_bar_over_the_logs_on_a_terminal_only(logs):
    """On a (pseudo-)terminal a bar counts the logs (``BASEPARAM_PROGRESS_DELAY=0``: shown from the start,
    however fast the run); without one (CliRunner, a pipe) nothing but the report."""
    _, _, paths = logs
    planar = str(ROOT / "robots" / "planar_rrr.yaml")
    status, seen = stderr_on_a_terminal("identify", planar, *paths)
    assert status == 0, seen.decode(errors="replace")
    assert b"reducing logs" in seen and b"/4 [" in seen, seen.decode(errors="replace")     # counts the 4 logs
    res = run("identify", planar, *paths)
    assert res.exit_code == 0 and "reducing logs" not in res.output and "%|" not in res.output


def test_streamed_gram_products_equal_those_of_the_whole_regressor():
    """The blocks of ``wide_blocks`` (the C loop's, past NATIVE_SAMPLES) reduced over each joint's column span
    give the per-joint Gram products of the whole base regressor, and the rows are zero outside the spans."""
    from baseparam.dynamics._native_rule import NATIVE_SAMPLES
    from baseparam.dynamics.regressors import evaluate, wide_blocks
    from baseparam.identification._least_squares import Factors, _Normal

    robot = bp.load_robot(ROOT / "robots" / "kuka_lwr4.yaml")
    base = bp.find_base_parameters(robot)
    rng = np.random.default_rng(3)
    S, n, R = NATIVE_SAMPLES + 2500, robot.n_dof, base.rank
    q, qd, qdd, tau = rng.normal(size=(4, S, n))
    W = evaluate(robot, q, qd, qdd, parameters=base.parameters, columns=base.pivots, workers=1)
    normal, factors = _Normal.empty(n, R), Factors(1, n, R)
    blocks = 0
    for sl, part, spans in wide_blocks(robot, q, qd, qdd, parameters=base.parameters, columns=base.pivots,
                                       block_bytes=8 * n * R * 3000):
        normal.add(part, tau[sl], spans)
        factors.add(0, part, tau[sl], spans)
        blocks += 1
    assert blocks == 5
    for j, (lo, hi) in enumerate(spans):
        assert not W[:, j, :lo].any() and not W[:, j, hi:].any()
    G, h = np.einsum("sjc,sjd->jcd", W, W), np.einsum("sjc,sj->jc", W, tau)
    np.testing.assert_allclose(normal.G, G, rtol=0, atol=1e-12 * np.abs(G).max())
    np.testing.assert_allclose(normal.h, h, rtol=0, atol=1e-12 * np.abs(h).max())
    np.testing.assert_allclose(factors.G[0, :, :R, :R], G, rtol=0, atol=1e-12 * np.abs(G).max())
    np.testing.assert_allclose(factors.G[0, :, :R, R], h, rtol=0, atol=1e-12 * np.abs(h).max())
    np.testing.assert_allclose(factors.G[0, :, R, R], (tau ** 2).sum(axis=0), rtol=1e-12)


# -- on the module's Dask cluster: last in the module, so that its two worker processes, started by the first of these
# tests, do not idle through the others until the module's end (an idle LocalCluster of two workers costs ~0.09 s of
# CPU per second, its scheduler and nannies in this process included: ~1 s per 10 s of the other tests)
def test_a_real_local_dask_cluster_gives_the_serial_result(logs, cluster):
    robot, base, paths = logs
    serial = bp.identify_logs(robot, paths, method="ols", base=base)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                 # the cluster's own chatter
        remote = bp.identify_logs(robot, paths, method="ols", base=base, scheduler=cluster.scheduler_address)
        res = CliRunner().invoke(main, ["identify", str(ROOT / "robots" / "planar_rrr.yaml"), *paths[:2],
                                        "--scheduler", cluster.scheduler_address, "--json", "-"])
    same_fit(remote, serial)
    for name in (*NANNY, "__DASK_PARENT_PID"):          # as before any cluster (the fixture restores them)
        os.environ.pop(name, None)
    before = dict(os.environ)
    local = bp.identify_logs(robot, paths, method="ols", base=base, scheduler="local", workers=2)
    same_fit(local, serial)
    assert dict(os.environ) == before                   # the library's own cluster leaves the caller's alone
    for a, b in zip(remote.logs, serial.logs):
        assert close(a.train.rmse, b.train.rmse) and close(a.held_out.rmse, b.held_out.rmse)
    assert res.exit_code == 0, res.output
    assert [d["source"] for d in json.loads(res.stdout)["logs"]] == paths[:2]


def test_a_fleet_identified_robot_by_robot_on_one_dask_cluster(tmp_path, cluster):
    """Item 4's fleet: robots of one design with scattered bodies, each identified from its own logs on
    the same cluster; each estimate finds its own robot's base parameters, not the fleet's."""
    import dataclasses

    design = planar_arm()
    base = bp.find_base_parameters(design)
    rng = np.random.default_rng(4)
    fleet = []
    for k in range(3):
        joints = tuple(dataclasses.replace(j, inertia=dataclasses.replace(j.inertia, mass=j.inertia.mass * s,
                                                                           inertia=j.inertia.inertia * s))
                       for j, s in zip(design.joints, rng.uniform(0.7, 1.3, 3)))
        robot = dataclasses.replace(design, joints=joints)
        paths = []
        for m in range(2):
            path = tmp_path / f"robot{k}_log{m}.npz"
            write(path, *simulated(robot, rng, 1500))
            paths.append(str(path))
        fleet.append((base.from_standard(bp.standard_parameters(robot)), paths))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = [bp.identify_logs(design, paths, base=base, scheduler=cluster.scheduler_address).values
                 for _, paths in fleet]
    truths = np.array([truth for truth, _ in fleet])
    for k, x in enumerate(found):
        distance = np.abs(truths - x)[:, [c for c, n in enumerate(base.names) if n.startswith(("XX", "SX"))]].max(1)
        assert np.argmin(distance) == k, distance
