"""Regressions of the Python API's fuzzing in issue 28's tenth round, over the older public surfaces (``read_h5`` of
damaged and hostile files, ``Model``/``BaseModel``, ``load_robot`` options, robots built in code, ``simulate``,
``export``, ``write_trajectory``/``read_trajectory``, the estimators and their results): each case below returned
NaN, or raised something other than the library's one-line errors, before its fix. The fuzzer itself was a
throwaway (thousands of calls); the tests here keep one cheap example of each class."""
import h5py
import numpy as np
import pytest

import baseparam as bp
from baseparam.errors import BaseParamError
from conftest import ROOT, planar_sines

RRR = ROOT / "robots" / "planar_rrr.yaml"


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A file of ``find_and_store`` for the planar arm."""
    path = tmp_path_factory.mktemp("h5") / "rrr.h5"
    bp.find_and_store(bp.load_robot(RRR), path)
    return path


@pytest.mark.parametrize("name", ["Y", "Z/data", "Z/indices"])
def test_read_h5_of_a_dataset_declaring_terabytes_is_refused_before_it_is_read(stored, tmp_path, name):
    """A dataset may declare any shape with its chunks never written (read as fill values, a file of a few kB):
    ``read_h5`` asked h5py for 8 TB and failed with a bare MemoryError."""
    path = tmp_path / "huge.h5"
    path.write_bytes(stored.read_bytes())
    with h5py.File(path, "r+") as f:
        dtype = f[name].dtype
        del f[name]
        f.create_dataset(name, shape=(10**12,), dtype=dtype, chunks=(1024,))
    # refused for its size, or (since round 13) first for its chunks never written: either way before it is read
    with pytest.raises(bp.StorageError, match=rf"huge.h5: {name}: (declares 1000000000000 values \(8 TB\), "
                                              "more than the .* of memory available|976562500 of its 976562500 chunks "
                                              "were never written)") as info:
        bp.read_h5(path)
    assert "\n" not in str(info.value)
    assert isinstance(info.value, BaseParamError)


def _planar_motion(robot):
    """A model of the planar arm (random standard parameters) and a smooth 3 s motion at 100 Hz: (model, (q, q̇, q̈))."""
    model = bp.Model(robot, np.random.default_rng(1).uniform(0.1, 1, bp.ColumnLayout(robot).n_standard))
    t = np.arange(300) * 0.01
    w = np.array([1.0, 2.0, 3.0])
    q = np.sin(np.outer(t, w) + [0.3, 0.5, 0.7])
    return model, (q, np.cos(np.outer(t, w) + [0.3, 0.5, 0.7]) * w, -q * w ** 2)


@pytest.fixture(scope="module")
def fit_of_torques_in_the_wrong_unit():
    """A consistent fit of the planar arm's torques 10⁸ times too large (e.g. read in another unit): bodies of
    tens of thousands of tonnes, a fit all the same."""
    robot = bp.load_robot(RRR)
    model, (q, qd, qdd) = _planar_motion(robot)
    return bp.identify(robot, (q, qd, qdd, bp.inverse_dynamics(model, q, qd, qdd) * 1e8), method="consistent")


@pytest.mark.parametrize("writer", ["to_robot", "to_yaml", "to_mjcf"])
def test_bodies_no_description_holds_are_refused_naming_the_link(fit_of_torques_in_the_wrong_unit, writer):
    """``to_robot``/``to_yaml`` raised ``Inertia.mass: …`` (no robot, link or method named); ``to_urdf`` (of a
    z-gravity robot) and ``to_mjcf`` wrote files with a 6·10⁷ kg link, which ``load_robot`` then refused."""
    ident = fit_of_torques_in_the_wrong_unit
    assert max(link["identified"]["mass"] for link in ident.bodies()) > 1e6     # the fit itself stands
    with pytest.raises(bp.DataError, match=rf"^{writer}: Planar RRR \(vertical plane\): link \d: the fitted body's "
                                           r"mass: expected a mass ≥ 0 and at most 1e\+06 kg, got .*no robot "
                                           "description holds it") as info:
        getattr(ident, writer)()
    assert "\n" not in str(info.value)


def linked_out(tmp_path, build, exists):
    """A file made by ``build(f, other)``: ``other`` an HDF5 file holding ``Y`` and ``q``, or no file at all."""
    other = tmp_path / "other.h5"
    if exists:
        with h5py.File(other, "w") as f:
            f["Y"] = f["q"] = np.ones((20, 3))
    path = tmp_path / "linked.h5"
    with h5py.File(path, "w") as f:
        build(f, str(other))
    return path


@pytest.mark.parametrize("exists", [True, False])
@pytest.mark.parametrize("name", ["Z", "Y", "Z/data"])
def test_read_h5_refuses_an_external_link_without_following_it(stored, tmp_path, name, exists):
    """``read_h5`` followed an external link (``f.get``, ``f["Z"]``) — opening the other file and reading its
    header — before refusing it: an external group ``Z`` was searched for ``Z/data``, a link to a missing file
    was 'cannot read' with HDF5's words."""
    def build(f, other):
        with h5py.File(stored, "r") as src:
            for key in src:
                src.copy(src[key], f, key)
            f.attrs.update(src.attrs)
        del f[name]
        f[name] = h5py.ExternalLink(other, "/" if name == "Z" else "Y")
    with pytest.raises(bp.StorageError, match=rf"linked.h5: {name}: an external link to '.*other.h5'; "
                                              "expected the data stored in this file"):
        bp.read_h5(linked_out(tmp_path, build, exists))


@pytest.mark.parametrize("exists", [True, False])
@pytest.mark.parametrize("how", ["named", "soft link", "in a linked group"])
def test_read_trajectory_refuses_an_external_link_without_following_it(tmp_path, how, exists):
    """The HDF5 trajectory reader likewise opened the file of an external link (or of a soft link to one)
    while looking up its candidate keys; a link to a missing file was no array at all."""
    def build(f, other):
        f["t"], f["tau"] = np.linspace(0, 1, 20), np.zeros((20, 3))
        if how == "named":
            f["q"] = h5py.ExternalLink(other, "q")
        elif how == "soft link":
            f["elsewhere"] = h5py.ExternalLink(other, "q")
            f["q"] = h5py.SoftLink("/elsewhere")
        else:
            f["g"] = h5py.ExternalLink(other, "/")
    key = "g/q" if how == "in a linked group" else "q"
    with pytest.raises(bp.DataError, match=rf"linked.h5: key {key}: an external link to '.*other.h5'"):
        bp.read_trajectory(linked_out(tmp_path, build, exists), columns={"q": key} if key == "g/q" else None)


@pytest.mark.parametrize("value", [np.nan, -np.inf, np.array([1.0, np.nan])])
def test_read_h5_refuses_attributes_that_are_not_finite(stored, tmp_path, value):
    """``find_and_store`` writes no attribute that is not a finite number; ``read_h5`` returned a damaged file's
    NaN in ``attrs`` as it was."""
    path = tmp_path / "nan.h5"
    path.write_bytes(stored.read_bytes())
    with h5py.File(path, "r+") as f:
        f.attrs["rank"] = value
    with pytest.raises(bp.StorageError, match=r"nan.h5: attribute 'rank': contains NaN or inf$"):
        bp.read_h5(path)
    assert bp.read_h5(stored)["attrs"]["rank"] == 9


@pytest.fixture(scope="module")
def planar_fit():
    """An OLS fit of the planar arm's exact torques, and its arrays (q, q̇, q̈, τ)."""
    robot, _model, _t, *arrays = planar_sines(1, 300, 0.01)
    return bp.BaseParameterEstimator(robot).fit(tuple(arrays)), tuple(arrays)


@pytest.mark.parametrize("change, words", [
    (lambda tau: tau * 1e154, r"field tau\d: absurd value .* at sample \d+ \(\|τ\| > 1e\+100\)"),
    (lambda tau: np.where(np.arange(tau.size).reshape(tau.shape) == 16, 1e300, tau),
     r"field tau2: absurd value 1e\+300 at sample 5"),
    (lambda tau: np.zeros_like(tau), r"field tau1: the torque is zero \(or its square is\) in every sample"),
    (lambda tau: np.full_like(tau, 1e-320), r"field tau1: the torque is zero \(or its square is\) in every sample"),
])
@pytest.mark.parametrize("call", ["validate", "score"])
def test_held_out_torques_without_error_figures_are_refused_not_nan(planar_fit, change, words, call):
    """``validate`` and ``score`` of held-out torques whose squares overflow returned NRMSE and R² of inf or NaN
    (fit refuses such torques); of a joint's torques all zero, an NRMSE of NaN (fit refuses a dead joint too)."""
    estimator, (q, qd, qdd, tau) = planar_fit
    with pytest.raises(bp.DataError, match=words) as info:
        getattr(estimator, call)((q, qd, qdd, change(tau)))
    assert "\n" not in str(info.value)
    assert estimator.score((q, qd, qdd, tau)) == pytest.approx(1.0, abs=1e-12)      # good data as before


def test_a_plot_of_a_format_matplotlib_lacks_is_refused_in_one_line(tmp_path):
    """``ExcitationDesign.plot(path)`` of an extension matplotlib cannot write raised matplotlib's bare
    ValueError ("Format 'out' is not supported ..."), naming neither the file nor the argument."""
    limits = bp.MotionLimits(lower=-np.ones(3), upper=np.ones(3), velocity=2 * np.ones(3),
                             acceleration=5 * np.ones(3), torque=100 * np.ones(3))
    design = bp.design_excitation(bp.load_robot(RRR), period=2.0, harmonics=2, rate=20.0, starts=1, limits=limits)
    with pytest.raises(bp.ArgumentError, match=r"^path: '.*design\.out': unsupported plot format '\.out' \(use one "
                                               r"of .*\.png"):
        design.plot(tmp_path / "design.out")
    assert list(tmp_path.iterdir()) == []


def test_memory_budgets_respect_an_address_space_limit(monkeypatch):
    """Under ``ulimit -v`` (RLIMIT_AS) numpy fails to allocate long before the machine's memory runs out, and the
    budgets, from MemAvailable alone, let the work start: a bare MemoryError (``FourierSeries.evaluate`` had no
    budget at all)."""
    import resource

    from baseparam import _memory

    with open("/proc/self/statm", encoding="ascii") as f:
        size = int(f.read().split()[0]) * resource.getpagesize()
    monkeypatch.setattr(resource, "getrlimit", lambda which: (size + (200 << 20), resource.RLIM_INFINITY)
                        if which == resource.RLIMIT_AS else (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    assert _memory.available_bytes() <= 200 << 20
    series = bp.FourierSeries(14.0, np.zeros(3), 0.1 * np.ones((3, 2)), 0.1 * np.ones((3, 2)))
    with pytest.raises(bp.ResourceLimitError, match=r"^rate: 1.4e\+07 samples .* more than the .* available$"):
        series.sample(1e6)
    with pytest.raises(bp.ResourceLimitError, match=r"^t: 2e\+06 times would need about .* available$"):
        series.evaluate(np.zeros(2_000_000))
    assert np.isfinite(series.evaluate(np.linspace(0, 14, 50))[0]).all()


def test_read_h5_of_a_file_of_too_many_attributes_is_refused_before_reading_them(stored, tmp_path):
    """Reading each of the root's attributes costs about a millisecond: a 4.5 MB file of 50 000 attributes took
    30 s of ``read_h5`` (and a larger one as long as one liked); their count is checked first."""
    path = tmp_path / "attrs.h5"
    path.write_bytes(stored.read_bytes())
    with h5py.File(path, "r+") as f:
        for k in range(60):
            f.attrs[f"extra{k}"] = k
    with pytest.raises(bp.StorageError, match=r"attrs.h5: 69 attributes; a baseparam file has at most 64 "):
        bp.read_h5(path)


def test_export_into_a_dangling_link_says_so(tmp_path):
    """``export(out_dir=)`` of a symbolic link to a missing folder said "cannot create the directory (File exists)";
    nothing is created through the link."""
    (tmp_path / "out").symlink_to(tmp_path / "missing")
    base = bp.find_base_parameters(bp.load_robot(RRR))
    with pytest.raises(bp.ExportError, match=r"out: out_dir: a symbolic link to '.*missing', which does not exist"):
        bp.export(base, "python", out_dir=tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_failed_consistent_fit_is_a_simulation_error():
    """The consistent fit's solver failing (torques 10⁻¹² of the arm's: far below what it resolves) raised the
    bare root class BaseParamError, which subclasses no builtin (errors.py: a numerical failure is a
    SimulationError, an ArithmeticError)."""
    robot = bp.load_robot(RRR)
    model, (q, qd, qdd) = _planar_motion(robot)
    with pytest.raises(bp.SimulationError, match=r"^Planar RRR \(vertical plane\): the consistent fit failed "
                                                 r"\(solver status \w+\)$") as info:
        bp.identify(robot, (q, qd, qdd, bp.inverse_dynamics(model, q, qd, qdd) * 1e-12), method="consistent")
    assert isinstance(info.value, ArithmeticError)
