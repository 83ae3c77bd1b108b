"""Fuzzing the Python API and the readers (issue 28): every public function, given arguments of any shape,
type and value (NaN, inf, huge, matrices, masked arrays, text, None), and every reader, given damaged
files, either returns finite results or raises a BaseParamError (or a TypeError for a wrong type), in
one line — never another exception, never NaN.

Bounded so that CI cannot flake: few examples per test, no deadline, derandomized; the whole module
runs in about 10 s."""
import inspect
import io
import warnings
import zipfile

import h5py
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import baseparam as bp
from baseparam.errors import BaseParamError
from baseparam.excitation.fourier import FourierSeries
from conftest import ROOT

FUZZ = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large])
RRR = ROOT / "robots" / "planar_rrr.yaml"
ROBOT = bp.load_robot(RRR)
N_STD = bp.ColumnLayout(ROBOT).n_standard
P = np.random.default_rng(8).uniform(0.1, 1.0, N_STD)
MODEL = bp.Model(ROBOT, P)


def finite(value):
    """Whether every number in a result (arrays, tuples, dicts, dataclass-like objects' arrays) is finite."""
    if isinstance(value, np.ndarray):
        return value.dtype.kind not in "fc" or bool(np.isfinite(value).all())
    if isinstance(value, float):
        return np.isfinite(value)
    if isinstance(value, (list, tuple)):
        return all(finite(v) for v in value)
    if isinstance(value, dict):
        return all(finite(v) for v in value.values())
    return True


def outcome(action):
    """Run ``action``: its finite result, or the library's own one-line error (None). Anything else fails."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # warnings are allowed; exceptions and NaN are the subject
        try:
            result = action()
        except (BaseParamError, TypeError) as exc:
            assert "\n" not in str(exc) or isinstance(exc, bp.RobotDescriptionError), repr(exc)
            assert "Traceback" not in str(exc)
            return None
    assert finite(result), f"non-finite result {result!r}"
    return result


# -- arguments of any kind ------------------------------------------------------------------------------------------
NUMBERS = st.one_of(st.floats(-10, 10), st.sampled_from([0.0, np.nan, np.inf, -np.inf, 1e300, -1e300, 1e-320, 1e9]))


KINDS = ["array", "array", "list", "matrix", "masked", "masked_some", "int", "bool", "complex", "text", "none",
         "object", "3d"]


@st.composite
def arrays(draw, width=3, kind=None, rows=None):
    """An argument meant as a state array: mostly the right shape, sometimes not, in many containers
    (``kind``: one of KINDS, drawn when None; ``rows``: the number of samples, drawn when None)."""
    rows = draw(st.sampled_from(["one", 0, 1, 4])) if rows is None else rows
    cols = draw(st.sampled_from([width, width, width, 2, 7]))
    shape = (cols,) if rows == "one" else (rows, cols)
    values = np.array(draw(st.lists(NUMBERS, min_size=int(np.prod(shape)), max_size=int(np.prod(shape)))),
                      dtype=float).reshape(shape)
    if draw(st.integers(0, 3)):                        # mostly finite, so that the computation itself runs
        values = np.nan_to_num(values, nan=0.5, posinf=1.0, neginf=-1.0)
        values = np.clip(values, -10, 10)
    return wrap(values, draw(st.sampled_from(KINDS)) if kind is None else kind)


def wrap(values, kind):
    if kind == "list":
        return values.tolist()
    if kind == "matrix" and values.ndim == 2:
        return np.matrix(values)
    if kind == "masked":
        return np.ma.masked_array(values)
    if kind == "masked_some" and values.size:
        return np.ma.masked_array(values, mask=np.arange(values.size).reshape(values.shape) % 2 == 0)
    if kind == "int":
        return np.round(np.nan_to_num(values)).clip(-100, 100).astype(int)
    if kind == "bool":
        return values > 0
    if kind == "complex":
        return values + 1j
    if kind == "text":
        return "0.1, 0.2"
    if kind == "none":
        return None
    if kind == "object":
        return np.array([object()] * max(values.size, 1))
    if kind == "3d":
        return values[..., None, None]
    return values


STATE_FUNCTIONS = ["inverse_dynamics", "forward_dynamics", "regressor", "slotine_li_regressor", "mass_matrix",
                   "coriolis_matrix", "coriolis_torque", "gravity_torque", "friction_torque", "potential_energy",
                   "kinetic_energy", "generalized_momenta", "velocities_from_momenta", "momenta_rate", "momentum",
                   "reaction_wrenches"]


def arity(name):
    f = getattr(bp, name)
    return sum(1 for p in inspect.signature(f).parameters.values()
               if p.default is p.empty and p.kind is p.POSITIONAL_OR_KEYWORD) - 1


@st.composite
def models(draw):
    """The planar arm's model, with parameters that are sometimes bad (NaN, a massless link, wrong length)."""
    kind = draw(st.sampled_from(["good", "good", "good", "massless", "nan", "short", "robot"]))
    if kind == "robot":
        return ROBOT
    p = P.copy()
    if kind == "massless":
        p[bp.ColumnLayout(ROBOT).link_columns[2]] = 0.0
    elif kind == "nan":
        p[draw(st.integers(0, N_STD - 1))] = np.nan
    elif kind == "short":
        p = p[:-1]
    return (lambda: bp.Model(ROBOT, p))


@FUZZ
@given(name=st.sampled_from(STATE_FUNCTIONS), model=models(), data=st.data())
def test_state_functions(name, model, data):
    kind = data.draw(st.sampled_from(KINDS), label="kind")          # one container for all, usually
    rows = data.draw(st.sampled_from(["one", 0, 1, 4]), label="rows")
    args = [data.draw(arrays(kind=kind if data.draw(st.integers(0, 5)) else None, rows=rows), label=f"arg{k}")
            for k in range(arity(name))]

    def action():
        m = model() if callable(model) else model
        return getattr(bp, name)(m, *args)
    outcome(action)


@settings(FUZZ, max_examples=25)
@given(q0=arrays(), qd0=arrays(), data=st.data(),
       options=st.fixed_dictionaries({}, optional={
           "method": st.sampled_from(["rk4", "DOP853", "RK45", "nope", 3]),
           "substeps": st.sampled_from([1, 2, 0, -1, 10 ** 9, 2.5, "x"]),
           "rtol": st.sampled_from([1e-6, 0, -1, np.nan, np.inf, "x"]),
           "atol": st.sampled_from([1e-6, 0, np.nan, None]),
           "state": st.sampled_from(["velocities", "momenta", "x"]),
           "record": st.sampled_from([("q", "tau"), ("q", "nope")])}))
def test_simulate(q0, qd0, data, options):
    t = data.draw(st.sampled_from([np.linspace(0, 0.2, 11), np.linspace(0, 0.2, 3),
                                   np.array([0, 1, 1, 2] * 3, dtype=float), np.full(11, np.nan), [0.0, 0.1]]),
                  label="t")
    tau = data.draw(st.one_of(st.none(), arrays(), st.just(lambda t, q, qd: -qd)), label="tau")
    outcome(lambda: bp.simulate(MODEL, t, q0, qd0, tau, **options))


@FUZZ
@given(period=st.one_of(NUMBERS, st.just("x")), q0=arrays(1), a=arrays(2), b=arrays(2), rate=NUMBERS)
def test_fourier_series(period, q0, a, b, rate):
    def action():
        series = FourierSeries(period, q0, a, b)
        return series.sample(rate).q if abs(period * rate) < 1e5 else series.coefficients
    outcome(action)


BASE = bp.find_base_parameters(bp.load_robot(ROOT / "robots" / "puma560.yaml"))


@FUZZ
@given(r=st.one_of(st.integers(-100, 100), st.just(10 ** 30), st.floats(), st.text(max_size=3), st.none()),
       p=arrays(BASE.rank))
def test_base_parameters_methods(r, p):
    outcome(lambda: BASE.terms(r))
    outcome(lambda: BASE.from_standard(p))


@settings(FUZZ, max_examples=20)
@given(prefix=st.one_of(st.text(max_size=8), st.none(), st.integers()),
       lang=st.sampled_from(["c", "python", "C", None]), what=st.sampled_from(["regressor", "nope", 3, ()]),
       out=st.sampled_from(["dir", "file", None, 3, ""]))
def test_export(tmp_path_factory, prefix, lang, what, out):
    folder = tmp_path_factory.mktemp("export")
    (folder / "file").write_text("x")
    out_dir = {"dir": folder / "gen", "file": folder / "file"}.get(out, out)
    small = bp.find_base_parameters(ROBOT)
    outcome(lambda: bp.export(small, lang, what, prefix, out_dir) and None)


@FUZZ
@given(text=st.one_of(st.text(max_size=40), st.sampled_from(["t=0,q=1:99999999999", "q=5:1", "t=,q", "x=1", "q=-1"])))
def test_parse_column_map(text):
    outcome(lambda: bp.parse_column_map(text))


@FUZZ
@given(t=arrays(), q=arrays(), tau=arrays(), gains=st.one_of(st.none(), NUMBERS, arrays()))
def test_from_arrays(t, q, tau, gains):
    outcome(lambda: (lambda traj: (traj.t, traj.q, traj.tau))(bp.from_arrays(t, q, tau, gains=gains)))


# -- readers --------------------------------------------------------------------------------------------------------
FIELD = st.one_of(st.sampled_from(["revolute", "prismatic", "pi/0", "pi/2", "1e999", "nan", "-90", "[1, 2]", "{}",
                                   "~", "0x10", "1_000", "\"90\"", "&a 1", "*a"]), st.floats(-400, 400).map(repr))


@FUZZ
@given(joints=st.lists(st.fixed_dictionaries({"type": FIELD, "alpha": FIELD, "a": FIELD, "d": FIELD},
                                             optional={"theta": FIELD, "parent": FIELD, "mass": FIELD}),
                       max_size=4),
       unit=st.sampled_from(["deg", "rad", "grad"]), gravity=st.lists(FIELD, max_size=4), tolerance=NUMBERS)
def test_parse_robot(joints, unit, gravity, tolerance):
    text = (f"units: {{length: m, angle: {unit}}}\ngravity: [{', '.join(gravity)}]\njoints:\n"
            + "".join("  - {" + ", ".join(f"{k}: {v}" for k, v in j.items()) + "}\n" for j in joints))
    robot = outcome(lambda: bp.parse_robot(text, "fuzz.yaml", angle_tolerance=abs(tolerance) * 1e-3))
    if robot is not None:
        outcome(lambda: bp.find_base_parameters(robot).rank)


@st.composite
def npz_files(draw):
    t, q = np.arange(12) * 0.01, np.random.default_rng(2).uniform(-1, 1, (12, 3))
    members = {"t.npy": t, "q.npy": q, "tau.npy": q * 2}
    change = draw(st.sampled_from(["none", "duplicate", "nan", "object", "shape", "huge_header", "drop", "dir"]))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, arr in members.items():
            if change == "drop" and name == "q.npy":
                continue
            if change == "nan" and name == "q.npy":
                arr = np.where(arr > 0.5, np.nan, arr)
            if change == "shape" and name == "tau.npy":
                arr = arr.T
            if change == "object" and name == "tau.npy":
                arr = np.array([None] * 12, dtype=object)
            with z.open(name, "w") as member:
                if change == "huge_header" and name == "q.npy":
                    member.write(b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': "
                                 b"(99999999999, 99999999), }" + b" " * 40 + b"\n")
                else:
                    np.lib.format.write_array(member, arr, allow_pickle=True)
        if change == "duplicate":
            with z.open("q.npy", "w") as member:
                np.lib.format.write_array(member, -q)
        if change == "dir":
            z.writestr("grp/", b"")
    data = bytearray(buffer.getvalue())
    for _ in range(draw(st.integers(0, 2))):        # a few flipped bytes
        k = draw(st.integers(0, len(data) - 1))
        data[k] = draw(st.integers(0, 255))
    return bytes(data)


@FUZZ
@given(data=npz_files(), skip=st.booleans())
def test_read_npz(tmp_path_factory, data, skip):
    path = tmp_path_factory.mktemp("npz") / "a.npz"
    path.write_bytes(data)
    outcome(lambda: (lambda traj: (traj.t, traj.q, traj.tau))(bp.read_trajectory(path, skip_bad_rows=skip)))


@settings(FUZZ, max_examples=30)
@given(kind=st.sampled_from(["plain", "virtual", "external", "link", "soft", "string", "compound", "nan", "scalar",
                             "empty", "huge"]), flips=st.integers(0, 2), data=st.data())
def test_read_trajectory_hdf5(tmp_path_factory, kind, flips, data):
    folder = tmp_path_factory.mktemp("h5")
    path = folder / "a.h5"
    t, q = np.arange(12) * 0.01, np.random.default_rng(2).uniform(-1, 1, (12, 3))
    with h5py.File(path, "w") as f:
        f["t"], f["tau"] = t, q
        if kind == "virtual":
            layout = h5py.VirtualLayout(shape=q.shape, dtype="f8")
            layout[:] = h5py.VirtualSource(str(folder / "missing.h5"), "x", shape=q.shape)
            f.create_virtual_dataset("q", layout, fillvalue=0)
        elif kind == "external":
            f.create_dataset("q", shape=q.shape, dtype="f8", external=[("/etc/hostname", 0, q.nbytes)])
        elif kind == "link":
            f["q"] = h5py.ExternalLink(str(folder / "missing.h5"), "q")
        elif kind == "soft":
            f["data/q"] = q
            f["q"] = h5py.SoftLink("/data/q")
        elif kind == "string":
            f["q"] = np.array([b"a"] * 12)
        elif kind == "compound":
            f["q"] = np.zeros(12, dtype=[("a", "f8"), ("b", "i4")])
        elif kind == "nan":
            f["q"] = np.where(q > 0.5, np.nan, q)
        elif kind == "scalar":
            f["q"] = 1.0
        elif kind == "empty":
            f["q"] = np.zeros((0, 3))
        elif kind == "huge":
            f.create_dataset("q", shape=(10 ** 9, 3), dtype="f8")
        else:
            f["q"] = q
    raw = bytearray(path.read_bytes())
    for _ in range(flips):
        k = data.draw(st.integers(0, len(raw) - 1))
        raw[k] = data.draw(st.integers(0, 255))
    path.write_bytes(bytes(raw))
    result = outcome(lambda: (lambda traj: (traj.t, traj.q))(bp.read_trajectory(path)))
    if kind in ("virtual", "external", "link", "string", "compound", "scalar", "empty", "huge"):
        assert result is None


@pytest.fixture(scope="module")
def z_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("z") / "z.h5"
    bp.find_and_store(ROBOT, str(path))
    return path.read_bytes()


@settings(FUZZ, max_examples=30)
@given(target=st.sampled_from(["Y", "pivots", "Z/data", "Z/indices", "Z/indptr", "Z/rows", "Z/columns"]),
       change=st.sampled_from(["nan", "shape", "dtype", "delete", "huge", "virtual", "negative", "none"]),
       flips=st.integers(0, 3), data=st.data())
def test_read_h5(tmp_path_factory, z_file, target, change, flips, data):
    path = tmp_path_factory.mktemp("z") / "z.h5"
    path.write_bytes(z_file)
    with h5py.File(path, "a") as f:
        if change != "none":
            old = f[target][()]
            del f[target]
            if change == "nan" and old.dtype.kind == "f":
                old = old.copy()
                old.flat[0] = np.nan
                f[target] = old
            elif change == "shape":
                f[target] = np.atleast_1d(old)[:1]
            elif change == "dtype":
                f[target] = np.array([b"x"] * max(1, np.size(old)))
            elif change == "huge" and old.dtype.kind in "iu":
                f[target] = np.full(np.shape(old), 10 ** 12, dtype=np.int64)
            elif change == "virtual":
                layout = h5py.VirtualLayout(shape=np.shape(old), dtype=old.dtype)
                layout[...] = h5py.VirtualSource("missing.h5", "x", shape=np.shape(old))
                f.create_virtual_dataset(target, layout)
            elif change == "negative" and old.dtype.kind in "iu":
                f[target] = -np.abs(old) - 1
            elif change != "delete":
                f[target] = old
    raw = bytearray(path.read_bytes())
    for _ in range(flips):
        k = data.draw(st.integers(0, len(raw) - 1))
        raw[k] = data.draw(st.integers(0, 255))
    path.write_bytes(bytes(raw))
    result = outcome(lambda: bp.read_h5(path))
    if result is not None:
        Z = result["Z"]
        assert finite(Z.data) and Z.shape == (result["rows"].shape[0], len(result["columns"]))
        assert result["Y"].shape == (result["pivots"].size, len(result["columns"]))


@settings(FUZZ, max_examples=30)
@given(text=st.lists(st.sampled_from(list("0123456789.,;e-+ \t\nabtqu#\"\r") + ["nan", "inf", "q1", "tau1", "t",
                                                                                "q99999999999"]),
                    max_size=300).map("".join),
       columns=st.one_of(st.none(), st.sampled_from(["t=0,q=1,tau=2", "t=0,q=1:99999999999", "q=x"])))
def test_read_csv(tmp_path_factory, text, columns):
    path = tmp_path_factory.mktemp("csv") / "a.csv"
    path.write_text("t,q1,tau1\n" + text, encoding="utf-8")
    outcome(lambda: (lambda traj: (traj.t, traj.q, traj.tau))(bp.read_trajectory(path, columns=columns)))
