"""``baseparam export``: the generated C and Python code, checked from the outside.

* Every robot file: C (compiled with ``gcc -std=c99 -pedantic -Wall -Wextra -Werror``, loaded with
  ctypes) and Python (imported from the output directory) against ``base.regressor``,
  ``base.slotine_li_regressor`` and ``base.inverse_dynamics`` at random states, to 1e-10 of the
  largest entry; base names, ``NAME_N_DOF``/``NAME_N_BASE``, shapes (one sample and batches).
* Random DH tables (hypothesis; both conventions, prismatic joints, trees, odd twists, rotor
  inertia and friction) against pinocchio's ``rnea``/``crba``/Coriolis matrix with rotor and
  friction torques added by hand; p_base = base.from_standard(p) for physically valid p.
* Operation counts: NAME.json = ``codegen.operation_counts``, the same for C and Python, equal to
  the operations actually written in the code (binary ``*``, ``+``/``-``, ``/`` counted by parsing
  every statement of every function; unary minus is free); PUMA and RX-90 bounds.
* Structure: includes, no allocation or mutable static state, sin/cos once per joint, temporaries
  assigned once and used at least twice, signatures as in docs/formats.md ("Exported code").
* The CLI: files written (atomically, nothing left behind), ``--what``, and one-line errors.
* A standalone C program including the header, compiled with the source, printing ``%.17g``.
"""
from __future__ import annotations

import ast
import ctypes
import importlib.util
import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

import baseparam as bp
from baseparam.codegen import _export as codegen
from baseparam.cli import main
from conftest import ROBOT_FILES, ROOT
from random_bodies import (assert_close, base_parameters, general_robots, random_parameters, random_states,
                           robots)

try:
    import pinocchio as pin
except ImportError:      # the pinocchio comparison is skipped, everything else runs
    pin = None

CC = shutil.which("gcc") or shutil.which("cc")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler (gcc/cc) found")
CFLAGS = ["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O2"]
RTOL = 1e-10
N_STATES = 20
FUNCTIONS = ("regressor", "slotine_li", "inverse_dynamics")
PUMA = ROOT / "robots" / "puma560.yaml"
RX90 = ROOT / "robots" / "staubli_rx90.yaml"
_counter = itertools.count()


# -- building and loading the exported code ----------------------------------------------------------
def compile_shared(directory, prefix):
    directory = Path(directory)
    so = directory / f"lib{prefix}.so"
    res = subprocess.run([CC, *CFLAGS, "-shared", "-fPIC", str(directory / f"{prefix}.c"), "-o", str(so), "-lm"],
                         capture_output=True, text=True, cwd=directory)
    assert res.returncode == 0, f"{prefix}.c does not compile cleanly:\n{res.stderr[:4000]}"
    return so


class CModule:
    """The exported C functions through ctypes, with numpy arrays in and out (one sample)."""

    def __init__(self, directory, prefix, n, R):
        self.lib = ctypes.CDLL(str(compile_shared(directory, prefix)))
        self.prefix, self.n, self.R = prefix, n, R

    def _call(self, name, arrays, sizes, out_size):
        fn = getattr(self.lib, f"{self.prefix}_{name}")
        fn.restype = None
        fn.argtypes = [np.ctypeslib.ndpointer(dtype=np.float64, flags="C_CONTIGUOUS")] * (len(arrays) + 1)
        args = [np.ascontiguousarray(a, dtype=np.float64) for a in arrays]
        assert [a.shape for a in args] == [(s,) for s in sizes]
        out = np.full(out_size, np.nan)            # every entry must be written (zeros included)
        fn(*args, out)
        return out

    def regressor(self, q, qd, qdd):
        n, R = self.n, self.R
        return self._call("regressor", (q, qd, qdd), (n, n, n), n * R).reshape(n, R)   # row-major

    def slotine_li(self, q, qd, qd_ref, qdd_ref):
        n, R = self.n, self.R
        return self._call("slotine_li", (q, qd, qd_ref, qdd_ref), (n,) * 4, n * R).reshape(n, R)

    def inverse_dynamics(self, q, qd, qdd, p_base):
        n, R = self.n, self.R
        return self._call("inverse_dynamics", (q, qd, qdd, p_base), (n, n, n, R), n)

    def base_names(self):
        names = (ctypes.c_char_p * self.R).in_dll(self.lib, f"{self.prefix}_base_names")
        return [x.decode() for x in names]


def import_python(path):
    name = f"exported_{Path(path).stem}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class Exported:
    robot: object
    base: object
    lang: str
    prefix: str
    directory: Path
    result: dict
    doc: dict = field(init=False)
    code: object = None                 # CModule or the imported Python module

    def __post_init__(self):
        self.doc = json.loads((self.directory / f"{self.prefix}.json").read_text())

    def text(self, suffix):
        return (self.directory / f"{self.prefix}{suffix}").read_text()


def export(robot, base, lang, directory, prefix, what=FUNCTIONS, load=True):
    result = codegen.export(base, lang, what=what, prefix=prefix, out_dir=str(directory))
    ex = Exported(robot, base, lang, prefix, Path(directory), result)
    if load:
        ex.code = (CModule(directory, prefix, robot.n_dof, base.rank) if lang == "c"
                   else import_python(Path(directory) / f"{prefix}_dynamics.py"))
    return ex


@pytest.fixture(scope="module")
def exports(tmp_path_factory):
    """exports(path, lang) → Exported: each robot file exported (and compiled) once per language."""
    cache = {}

    def get(path, lang):
        key = (path.stem, lang)
        if key not in cache:
            if lang == "c" and CC is None:
                pytest.skip("no C compiler (gcc/cc) found")
            robot = bp.load_robot(path)
            base = base_parameters(robot, "pseudo")
            cache[key] = export(robot, base, lang, tmp_path_factory.mktemp(f"{path.stem}_{lang}"), path.stem)
        return cache[key]
    return get


def _seed(*parts):
    return sum((i + 1) * ord(ch) for i, ch in enumerate("/".join(parts))) % 2**32


def states(robot, base, rng, n=N_STATES):
    q, qd, qdd = random_states(robot, n, rng)
    _, qd_r, qdd_r = random_states(robot, n, rng)
    p, _, _ = random_parameters(robot, base.parameters, rng)
    return q, qd, qdd, qd_r, qdd_r, base.from_standard(p)


# -- 1, 2: every robot file, C and Python, against the library -------------------------------------------
@needs_cc
@pytest.mark.parametrize("path", ROBOT_FILES, ids=lambda p: p.stem)
def test_c_export_matches_library(path, exports):
    ex = exports(path, "c")
    robot, base, c = ex.robot, ex.base, ex.code
    q, qd, qdd, qd_r, qdd_r, pb = states(robot, base, np.random.default_rng(_seed(path.stem, "c")))
    W = base.regressor(q, qd, qdd)
    Ysl = base.slotine_li_regressor(q, qd, qd_r, qdd_r)
    tau = bp.inverse_dynamics(base.model(pb), q, qd, qdd)
    for s in range(N_STATES):
        at = f"{path.stem} C, sample {s}"
        Wc = c.regressor(q[s], qd[s], qdd[s])
        assert_close(Wc, W[s], rtol=RTOL, what=f"{at}: NAME_regressor vs base.regressor")
        assert_close(c.slotine_li(q[s], qd[s], qd_r[s], qdd_r[s]), Ysl[s], rtol=RTOL,
                     what=f"{at}: NAME_slotine_li vs base.slotine_li_regressor")
        tc = c.inverse_dynamics(q[s], qd[s], qdd[s], pb)
        assert_close(tc, tau[s], rtol=RTOL, what=f"{at}: NAME_inverse_dynamics vs base.inverse_dynamics")
        assert_close(Wc @ pb, tc, rtol=RTOL, what=f"{at}: NAME_regressor @ p_base vs NAME_inverse_dynamics")
    # names and sizes: the array in the library, the macros in the header
    assert c.base_names() == list(base.names) == ex.doc["base"]
    header = ex.text(".h")
    P = ex.prefix.upper()
    assert re.search(rf"^#define {P}_N_DOF {robot.n_dof}$", header, re.M), f"{path.stem}: {P}_N_DOF"
    assert re.search(rf"^#define {P}_N_BASE {base.rank}$", header, re.M), f"{path.stem}: {P}_N_BASE"


@pytest.mark.parametrize("path", ROBOT_FILES, ids=lambda p: p.stem)
def test_python_export_matches_library(path, exports):
    ex = exports(path, "python")
    robot, base, m = ex.robot, ex.base, ex.code
    n, R = robot.n_dof, base.rank
    assert (m.N_DOF, m.N_BASE, list(m.BASE_NAMES)) == (n, R, list(base.names))
    assert m.OPERATION_COUNTS == ex.doc["functions"]
    q, qd, qdd, qd_r, qdd_r, pb = states(robot, base, np.random.default_rng(_seed(path.stem, "py")))
    W = base.regressor(q, qd, qdd)
    Ysl = base.slotine_li_regressor(q, qd, qd_r, qdd_r)
    tau = bp.inverse_dynamics(base.model(pb), q, qd, qdd)
    tag = f"{path.stem} Python"
    # a batch (S, n)
    Wm, Ym, tm = m.regressor(q, qd, qdd), m.slotine_li(q, qd, qd_r, qdd_r), m.inverse_dynamics(q, qd, qdd, pb)
    assert Wm.shape == Ym.shape == (N_STATES, n, R) and tm.shape == (N_STATES, n)
    assert_close(Wm, W, rtol=RTOL, what=f"{tag} batch: regressor")
    assert_close(Ym, Ysl, rtol=RTOL, what=f"{tag} batch: slotine_li")
    assert_close(tm, tau, rtol=RTOL, what=f"{tag} batch: inverse_dynamics")
    # one sample (n,), sample by sample; and a batch of one
    for s in range(0, N_STATES, 4):
        Ws = m.regressor(q[s], qd[s], qdd[s])
        ts = m.inverse_dynamics(list(q[s]), list(qd[s]), list(qdd[s]), list(pb))
        Ys = m.slotine_li(q[s], qd[s], qd_r[s], qdd_r[s])
        assert Ws.shape == Ys.shape == (n, R) and ts.shape == (n,)
        assert_close(Ws, W[s], rtol=RTOL, what=f"{tag} sample {s}: regressor")
        assert_close(Ys, Ysl[s], rtol=RTOL, what=f"{tag} sample {s}: slotine_li")
        assert_close(ts, tau[s], rtol=RTOL, what=f"{tag} sample {s}: inverse_dynamics")
    one = slice(3, 4)
    assert m.regressor(q[one], qd[one], qdd[one]).shape == (1, n, R)
    assert m.inverse_dynamics(q[one], qd[one], qdd[one], pb).shape == (1, n)
    with pytest.raises(ValueError):
        m.regressor(q[:, :-1] if n > 1 else q[:, :0], qd, qdd)
    with pytest.raises(ValueError):
        m.inverse_dynamics(q, qd, qdd, pb[:-1])
    # numpy only
    imports = set()
    for node in ast.walk(ast.parse(ex.text("_dynamics.py"))):
        if isinstance(node, ast.Import):
            imports |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imports.add((node.module or "").split(".")[0])
    assert imports <= {"numpy", "math", "__future__"}, f"{path.stem}: the module imports {imports}"  # math: one sample


# -- 3: random DH tables against pinocchio --------------------------------------------------------------
@pytest.mark.skipif(pin is None, reason="pinocchio is not installed")
@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(robot=robots(), parameters=st.sampled_from(["pseudo", "khalil"]), seed=st.integers(0, 2**32 - 1))
def test_random_robots_against_pinocchio(robot, parameters, seed):
    check_export_against_pinocchio(robot, parameters, seed)


@pytest.mark.skipif(pin is None, reason="pinocchio is not installed")
@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(robot=general_robots(drives=True), parameters=st.sampled_from(["pseudo", "khalil"]),
       seed=st.integers(0, 2**32 - 1))
def test_random_general_geometry_against_pinocchio(robot, parameters, seed):
    """URDF-convention joints (origins, unaligned axes, trees) in the exported code."""
    check_export_against_pinocchio(robot, parameters, seed)


def check_export_against_pinocchio(robot, parameters, seed):
    rng = np.random.default_rng(seed)
    base = base_parameters(robot, parameters)
    p, bodies, drives = random_parameters(robot, parameters, rng)
    pb = base.from_standard(p)
    from pin_model import PinReference
    ref = PinReference(robot, bodies, drives)
    S = 5
    q, qd, qdd = random_states(robot, S, rng)
    _, qd_r, qdd_r = random_states(robot, S, rng)
    tau_ref = np.array([ref.rnea(q[s], qd[s], qdd[s]) for s in range(S)])
    sl_ref = np.array([ref.slotine_li(q[s], qd[s], qd_r[s], qdd_r[s]) for s in range(S)])
    tag = f"random robot [{parameters}, {robot.convention}, {robot.n_dof} dof, parents {robot.parents}]"
    with tempfile.TemporaryDirectory() as tmp:
        prefix = f"rnd{next(_counter)}"
        codes = {"python": export(robot, base, "python", Path(tmp) / "py", prefix)}
        if CC is not None:
            codes["c"] = export(robot, base, "c", Path(tmp) / "c", prefix)
        for lang, ex in codes.items():
            m = ex.code
            check_counts(ex)
            if lang == "c":
                check_c_structure(ex)
            for s in range(S):
                at = f"{tag}, {lang}, sample {s}"
                tau = m.inverse_dynamics(q[s], qd[s], qdd[s], pb)
                assert_close(tau, tau_ref[s], rtol=RTOL, what=f"{at}: exported inverse_dynamics vs pin.rnea")
                assert_close(m.regressor(q[s], qd[s], qdd[s]) @ pb, tau_ref[s], rtol=RTOL,
                             what=f"{at}: exported regressor @ p_base vs pin.rnea")
                assert_close(m.slotine_li(q[s], qd[s], qd_r[s], qdd_r[s]) @ pb, sl_ref[s], rtol=RTOL,
                             what=f"{at}: exported slotine_li @ p_base vs pinocchio's M q̈_r + C q̇_r + g + friction")
                assert_close(m.slotine_li(q[s], qd[s], qd[s], qdd[s]) @ pb, tau_ref[s], rtol=RTOL,
                             what=f"{at}: exported slotine_li(q̇_r = q̇, q̈_r = q̈) @ p_base vs pin.rnea")


# -- 4, 5: operation counts and structure of the code ----------------------------------------------------
def strip_c_comments(text):
    return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", text, flags=re.S))


def c_functions(source):
    """{function name: (parameter list text, [body statements])} of a C source without comments."""
    out = {}
    for m in re.finditer(r"^void (\w+)\(([^)]*)\)\s*\{(.*?)^\}", source, re.M | re.S):
        body = [line.strip() for line in m.group(3).strip().splitlines() if line.strip()]
        out[m.group(1)] = (m.group(2), body)
    return out


def binops(expr):
    """(mul, add, div) of an expression: binary operators only (unary minus is free)."""
    counts = {ast.Mult: 0, ast.Add: 0, ast.Sub: 0, ast.Div: 0}
    for node in ast.walk(ast.parse(expr, mode="eval")):
        if isinstance(node, ast.BinOp):
            assert type(node.op) in counts, f"unexpected operator {type(node.op).__name__} in {expr!r}"
            counts[type(node.op)] += 1
    return counts[ast.Mult], counts[ast.Add] + counts[ast.Sub], counts[ast.Div]


def star_tokens(expr):
    """'*' characters, and binary '+'/'-' found by a plain tokenizer (an independent second count)."""
    token = re.compile(r"\s*(?:(?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)"
                       r"|(?P<id>[A-Za-z_]\w*)|(?P<op>[-+*/()\[\],.]))")
    pos, prev, mul, add = 0, None, 0, 0
    expr = expr.rstrip()
    while pos < len(expr):
        m = token.match(expr, pos)
        assert m and m.end() > pos, f"cannot tokenize {expr[pos:]!r}"
        pos = m.end()
        kind = m.lastgroup
        text = m.group(kind)
        if text == "*":
            mul += 1
        elif text in "+-" and prev is not None and (prev[0] in ("num", "id") or prev[1] in (")", "]")):
            add += 1
        prev = (kind, text)
    return mul, add


C_PATTERNS = {
    "offset": re.compile(r"const double q(\d+) = q\[(\d+)\] [+-] (.+);"),
    "trig": re.compile(r"const double c(\d+) = cos\((q\[\d+\]|q\d+)\), s(\d+) = sin\((q\[\d+\]|q\d+)\);"),
    "sign": re.compile(r"const double sg(\d+) = \(double\)\(\(qd\[(\d+)\] > 0\.0\) - \(qd\[(\d+)\] < 0\.0\)\);"),
    "temp": re.compile(r"const double (t\d+) = (.+);"),
    "zero": re.compile(r"for \(int i = 0; i < (\d+); \+\+i\) (Y|tau)\[i\] = 0\.0;"),
    "output": re.compile(r"(Y|tau)\[(\d+)\] = (.+);"),
    "void": re.compile(r"\(void\)(\w+);"),
}


def classify_c(statement):
    for kind, pattern in C_PATTERNS.items():
        m = pattern.fullmatch(statement)
        if m:
            return kind, m
    raise AssertionError(f"unexpected statement in the generated C: {statement!r}")


def c_body_analysis(body, fname):
    """Counts, sin/cos joints and temporaries of one C function body (asserting its shape)."""
    mul = add = div = stars = tok_add = 0
    cos_joints, temps, outputs = [], {}, []
    exprs = []
    for statement in body:
        kind, m = classify_c(statement)
        if kind == "offset":
            assert int(m.group(1)) == int(m.group(2)) + 1
            exprs.append(f"q[{m.group(2)}] + {m.group(3)}")
        elif kind == "trig":
            k = int(m.group(1))
            assert m.group(1) == m.group(3) and m.group(2) == m.group(4), statement
            assert m.group(2) in (f"q[{k - 1}]", f"q{k}"), f"{fname}: c{k}/s{k} of {m.group(2)}"
            cos_joints.append(int(m.group(1)))
        elif kind == "temp":
            assert m.group(1) not in temps, f"{fname}: temporary {m.group(1)} assigned twice"
            temps[m.group(1)] = m.group(2)
            exprs.append(m.group(2))
        elif kind == "output":
            outputs.append(int(m.group(2)))
            exprs.append(m.group(3))
    for e in exprs:
        a, b, c = binops(e)
        s, t = star_tokens(e)
        mul, add, div, stars, tok_add = mul + a, add + b, div + c, stars + s, tok_add + t
    assert (stars, tok_add) == (mul, add), f"{fname}: tokenizer and parser disagree: {(stars, tok_add)} vs {(mul, add)}"
    assert len(outputs) == len(set(outputs)), f"{fname}: an output entry is written twice"
    return {"mul": mul, "add": add, "div": div, "sincos": len(set(cos_joints))}, cos_joints, temps, exprs


def python_counts(source):
    """{function: {mul, add, div, sincos}} of the Python export, from its AST (docstrings aside)."""
    out = {}
    for fn in ast.parse(source).body:
        if not (isinstance(fn, ast.FunctionDef) and fn.name in FUNCTIONS):
            continue
        counts = {ast.Mult: 0, ast.Add: 0, ast.Sub: 0, ast.Div: 0}
        trig = set()
        for node in ast.walk(fn):
            if isinstance(node, ast.BinOp):
                assert type(node.op) in counts, f"{fn.name}: unexpected operator {type(node.op).__name__}"
                counts[type(node.op)] += 1
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("cos", "sin"):
                trig.add((node.func.id, ast.unparse(node.args[0])))    # math.cos or np.cos, bound per call
        angles = {a for _, a in trig}
        assert len(trig) == 2 * len(angles), f"{fn.name}: sin and cos not paired: {sorted(trig)}"
        out[fn.name] = {"mul": counts[ast.Mult], "add": counts[ast.Add] + counts[ast.Sub],
                        "div": counts[ast.Div], "sincos": len(angles)}
    return out


def check_counts(ex):
    """NAME.json = codegen.operation_counts = the operations written in the code (one export)."""
    selected = codegen.routines(ex.base, list(ex.doc["functions"]))
    expected = {r.name: codegen.operation_counts(r, ex.robot) for r in selected}
    assert ex.doc["functions"] == expected == dict(ex.result.functions)
    assert ex.doc["base"] == list(ex.base.names)
    if ex.lang == "c":
        funcs = c_functions(strip_c_comments(ex.text(".c")))
        written = {name[len(ex.prefix) + 1:]: c_body_analysis(body, name)[0] for name, (_, body) in funcs.items()}
    else:
        written = python_counts(ex.text("_dynamics.py"))
    assert written == expected, f"{ex.prefix} ({ex.lang}): operations in the code {written} != NAME.json {expected}"


@pytest.mark.parametrize("lang", ["c", "python"])
@pytest.mark.parametrize("path", ROBOT_FILES, ids=lambda p: p.stem)
def test_operation_counts_are_the_code(path, lang, exports):
    ex = exports(path, lang)
    check_counts(ex)
    other = exports(path, "python" if lang == "c" else "c") if CC is not None else None
    if other is not None:
        assert other.doc["functions"] == ex.doc["functions"], f"{path.stem}: counts differ between C and Python"
        assert other.doc["base"] == ex.doc["base"]
    n_revolute = sum(j.is_revolute for j in ex.robot.joints)
    for name, c in ex.doc["functions"].items():
        assert set(c) == {"mul", "add", "div", "sincos"} and all(isinstance(v, int) and v >= 0 for v in c.values())
        assert c["sincos"] <= n_revolute, \
            f"{path.stem} {name}: {c['sincos']} sin/cos pairs, {n_revolute} revolute joints"


COUNTS_SEEN = {}


@pytest.mark.parametrize("path", [PUMA, RX90], ids=lambda p: p.stem)
def test_operation_count_bounds(path, exports):
    ex = exports(path, "python")
    f = ex.doc["functions"]
    seen = {k: v["mul"] for k, v in f.items()}
    assert f["inverse_dynamics"]["mul"] < 300, f"{path.stem}: inverse dynamics {f['inverse_dynamics']} (all: {seen})"
    assert f["regressor"]["mul"] < 800, f"{path.stem}: regressor {f['regressor']} (all: {seen})"
    # joint 1 turns about the vertical, along gravity: its angle never enters the dynamics
    assert all(c["sincos"] == 5 for c in f.values()), f"{path.stem}: sincos {[c['sincos'] for c in f.values()]}"
    assert all(c["div"] == 0 for c in f.values())


def expected_signature(prefix, name, n, R):
    args = {"regressor": ("q", "qd", "qdd"), "slotine_li": ("q", "qd", "qd_ref", "qdd_ref"),
            "inverse_dynamics": ("q", "qd", "qdd", "p_base")}[name]
    params = [f"const double {a}[{R if a == 'p_base' else n}]" for a in args]
    params.append(f"double tau[{n}]" if name == "inverse_dynamics" else f"double Y[{n * R}]")
    return f"void {prefix}_{name}({', '.join(params)})"


@needs_cc
@pytest.mark.parametrize("path", ROBOT_FILES, ids=lambda p: p.stem)
def test_c_structure(path, exports):
    check_c_structure(exports(path, "c"))


def check_c_structure(ex):
    """Includes, no allocation or static state, the contract's signatures, sin/cos once per joint,
    temporaries assigned once, defined before use and used at least twice (one C export)."""
    n, R, P = ex.robot.n_dof, ex.base.rank, ex.prefix
    source, header = strip_c_comments(ex.text(".c")), strip_c_comments(ex.text(".h"))
    # includes: <math.h> and its own header; the header needs nothing
    assert re.findall(r"^\s*#\s*include\s*(\S+)", source, re.M) == ["<math.h>", f'"{P}.h"']
    assert re.findall(r"^\s*#\s*include\s*(\S+)", header, re.M) in ([], ["<math.h>"])
    for text in (source, header):
        for word in ("malloc", "calloc", "realloc", "free", "alloca", "static", "goto", "exp", "pow", "sqrt"):
            assert not re.search(rf"\b{word}\b", text), f"{P}: '{word}' in the generated C"
        assert "double *" not in text.replace("const char *const", "")
    # top level of the source: only the const names array and the functions
    top = re.sub(r"^void \w+\([^)]*\)\s*\{.*?^\}", "", source, flags=re.M | re.S)
    top_lines = [l for l in top.splitlines() if l.strip() and not l.startswith("#include")]
    names = ", ".join(f'"{x}"' for x in ex.base.names)
    assert top_lines == [f"const char *const {P}_base_names[{R}] = {{{names}}};"], top_lines
    # signatures: exactly the contract's, the same in header and source, the functions asked for
    funcs = c_functions(source)
    assert sorted(funcs) == sorted(f"{P}_{f}" for f in FUNCTIONS)
    for f in FUNCTIONS:
        sig = expected_signature(P, f, n, R)
        assert f"{sig}\n{{" in source, f"{P}: definition of {f} is not {sig}"
        assert f"{sig};" in header, f"{P}: header does not declare {sig}"
    assert f"extern const char *const {P}_base_names[{R}];" in header
    for fname, (_, body) in funcs.items():
        counts, cos_joints, temps, exprs = c_body_analysis(body, fname)
        # sin/cos: one pair per joint, of revolute joints only, matching the declared angle
        assert len(cos_joints) == len(set(cos_joints)), f"{fname}: sin/cos of a joint computed twice"
        assert all(ex.robot.joints[k - 1].is_revolute for k in cos_joints), f"{fname}: sin/cos of a prismatic joint"
        body_text = "\n".join(body)
        assert len(re.findall(r"\bcos\(", body_text)) == len(re.findall(r"\bsin\(", body_text)) == len(cos_joints)
        # temporaries: t1, t2, ... each assigned once, each used at least twice
        assert list(temps) == [f"t{i}" for i in range(1, len(temps) + 1)], f"{fname}: temporaries out of order"
        uses = {t: 0 for t in temps}
        for e in exprs:
            for t in re.findall(r"\bt\d+\b", e):
                assert t in uses, f"{fname}: {t} used but never defined"
                uses[t] += 1
        once = sorted((t for t, u in uses.items() if u < 2), key=lambda t: int(t[1:]))
        assert not once, f"{fname}: temporaries used fewer than twice: {once[:10]}"
        # a temporary is used only after its definition
        for i, (t, e) in enumerate(temps.items()):
            later = [u for u in re.findall(r"\bt(\d+)\b", e) if int(u) >= i + 1]
            assert not later, f"{fname}: {t} uses t{later}"


def _signed_terms(node, sign=1):
    """A sum flattened into (sign, term) pairs; products and calls are terms."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        right = -sign if isinstance(node.op, ast.Sub) else sign
        return _signed_terms(node.left, sign) + _signed_terms(node.right, right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _signed_terms(node.operand, -sign)
    return [(sign, ast.unparse(node))]


def test_no_term_cancels_in_the_code(exports):
    """No sum in the exported code holds the same term with both signs (x − x is a wasted operation)."""
    found = []
    for path in ROBOT_FILES:
        ex = exports(path, "python")
        for fn in ast.parse(ex.text("_dynamics.py")).body:
            if not (isinstance(fn, ast.FunctionDef) and fn.name in FUNCTIONS):
                continue
            for stmt in fn.body:
                if not isinstance(stmt, ast.Assign):
                    continue
                for node in ast.walk(stmt.value):
                    terms = _signed_terms(node)
                    both = {t for sg, t in terms if sg > 0} & {t for sg, t in terms if sg < 0}
                    if both:
                        found.append(f"{path.stem}.{fn.name}: {ast.unparse(stmt)[:80]} (cancels {sorted(both)})")
                        break
    assert not found, f"{len(found)} sums with cancelling terms, e.g. " + "; ".join(found[:4])


def test_python_numbers_are_plain_literals(exports):
    """Constants in the Python export are float literals, not reprs of numpy scalars."""
    calls = []
    for path in ROBOT_FILES:
        for node in ast.walk(ast.parse(exports(path, "python").text("_dynamics.py"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr.startswith("float")):
                calls.append(f"{path.stem}: {ast.unparse(node)}")
    assert not calls, calls


# -- 6: the command line ------------------------------------------------------------------------------
def run_cli(*args):
    try:
        runner = CliRunner(mix_stderr=False)        # click < 8.2
    except TypeError:
        runner = CliRunner()
    return runner.invoke(main, [str(a) for a in args])


def test_cli_writes_the_files(tmp_path):
    out = tmp_path / "gen"
    res = run_cli("export", PUMA, "--lang", "c", "--out", out, "--prefix", "puma")
    assert res.exit_code == 0, res.output
    assert sorted(os.listdir(out)) == ["puma.c", "puma.h", "puma.json"]     # nothing temporary left behind
    doc = json.loads((out / "puma.json").read_text())
    assert sorted(doc["functions"]) == sorted(FUNCTIONS) and len(doc["base"]) == 36
    for name, c in doc["functions"].items():          # the summary printed is the JSON's
        assert re.search(rf"^\s*{name}\s+{c['mul']} mul\s+{c['add']} add\s+{c['div']} div\s+{c['sincos']} sincos$",
                         res.stdout, re.M), res.stdout
    # a second run over the same files replaces them (still nothing temporary)
    res = run_cli("export", PUMA, "--lang", "python", "--out", out, "--prefix", "puma", "--what", "regressor")
    assert res.exit_code == 0, res.output
    assert sorted(os.listdir(out)) == ["puma.c", "puma.h", "puma.json", "puma_dynamics.py"]
    doc = json.loads((out / "puma.json").read_text())
    assert list(doc["functions"]) == ["regressor"]
    text = (out / "puma_dynamics.py").read_text()
    assert "def regressor(" in text and "def slotine_li(" not in text and "def inverse_dynamics(" not in text


@needs_cc
def test_cli_what_selects_functions(tmp_path):
    out = tmp_path / "gen"
    res = run_cli("export", PUMA, "--lang", "c", "--out", out, "--prefix", "puma", "--what", "regressor")
    assert res.exit_code == 0, res.output
    source, header = (out / "puma.c").read_text(), (out / "puma.h").read_text()
    assert "puma_regressor(" in source and "puma_regressor(" in header
    for f in ("slotine_li", "inverse_dynamics"):
        assert f"puma_{f}" not in source and f"puma_{f}" not in header
    assert list(json.loads((out / "puma.json").read_text())["functions"]) == ["regressor"]
    compile_shared(out, "puma")
    res = run_cli("export", PUMA, "--lang", "c", "--out", out, "--prefix", "two", "--what",
                  "inverse-dynamics,slotine-li")
    assert res.exit_code == 0, res.output
    assert list(json.loads((out / "two.json").read_text())["functions"]) == ["inverse_dynamics", "slotine_li"]
    source = (out / "two.c").read_text()
    assert "two_inverse_dynamics(" in source and "two_slotine_li(" in source and "two_regressor(" not in source
    compile_shared(out, "two")
    assert not [f for f in os.listdir(out) if f.startswith(".")], os.listdir(out)


def _bad_inputs(tmp_path):
    a_file = tmp_path / "a_file.txt"
    a_file.write_text("x\n")
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: broken\nconvention: standard\njoints: [ {type: revolute, alpha: 0\n")
    unknown_key = tmp_path / "unknown.yaml"
    unknown_key.write_text(PUMA.read_text().replace("convention:", "conventio:", 1))
    return {
        "unknown --lang": ("--lang", "fortran"),
        "unknown --what": ("--lang", "c", "--what", "regressor,mass-matrix"),
        "empty --what": ("--lang", "c", "--what", ""),
        "prefix 1abc": ("--lang", "c", "--prefix", "1abc"),
        "prefix a-b": ("--lang", "c", "--prefix", "a-b"),
        "prefix keyword": ("--lang", "python", "--prefix", "class"),
        "--out is a file": ("--lang", "c", "--out", a_file),
        "--out below a file": ("--lang", "python", "--out", a_file / "sub"),
        "malformed yaml": ("--lang", "c", "ROBOT", broken),
        "unknown key": ("--lang", "c", "ROBOT", unknown_key),
        "missing robot": ("--lang", "c", "ROBOT", tmp_path / "nope.yaml"),
    }


@pytest.mark.parametrize("case", ["unknown --lang", "unknown --what", "empty --what", "prefix 1abc", "prefix a-b",
                                  "prefix keyword", "--out is a file", "--out below a file", "malformed yaml",
                                  "unknown key", "missing robot"])
def test_cli_bad_input_is_one_line(tmp_path, case):
    args = list(_bad_inputs(tmp_path)[case])
    robot = PUMA
    if "ROBOT" in args:
        i = args.index("ROBOT")
        robot = args[i + 1]
        del args[i:i + 2]
    out = tmp_path / "gen"
    if "--out" not in args:
        args += ["--out", out]
    res = run_cli("export", robot, *args)
    assert res.exit_code == 2, f"{case}: exit {res.exit_code}, output {res.output!r}"
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("baseparam:"), f"{case}: stderr {res.stderr!r}"
    assert "Traceback" not in res.output
    assert not out.exists() or not os.listdir(out), f"{case}: files written: {os.listdir(out)}"


# -- 7: a standalone C program ----------------------------------------------------------------------------
MAIN_C = r"""
#include <stdio.h>
#include "NAME.h"

int main(void)
{
    const double q[PFX_N_DOF] = {QVALS}, qd[PFX_N_DOF] = {QDVALS}, qdd[PFX_N_DOF] = {QDDVALS};
    const double p[PFX_N_BASE] = {PVALS};
    double Y[PFX_N_DOF * PFX_N_BASE], tau[PFX_N_DOF];
    int i;
    printf("%d %d\n", PFX_N_DOF, PFX_N_BASE);
    for (i = 0; i < PFX_N_BASE; ++i) printf("%s\n", NAME_base_names[i]);
    NAME_regressor(q, qd, qdd, Y);
    for (i = 0; i < PFX_N_DOF * PFX_N_BASE; ++i) printf("%.17g\n", Y[i]);
    NAME_inverse_dynamics(q, qd, qdd, p, tau);
    for (i = 0; i < PFX_N_DOF; ++i) printf("%.17g\n", tau[i]);
    return 0;
}
"""


@needs_cc
@pytest.mark.parametrize("path", [PUMA, ROOT / "robots" / "dual_arm_torso.yaml"], ids=lambda p: p.stem)
def test_standalone_c_program(path, tmp_path):
    robot = bp.load_robot(path)
    base = base_parameters(robot, "pseudo")
    prefix = "arm"
    codegen.export(base, "c", prefix=prefix, out_dir=str(tmp_path))
    n, R = robot.n_dof, base.rank
    rng = np.random.default_rng(7)
    q, qd, qdd = (np.round(rng.uniform(-2, 2, n), 6) for _ in range(3))
    p = np.round(rng.uniform(-1, 1, R), 6)

    def values(x):
        return ", ".join(repr(float(v)) for v in x)
    program = (MAIN_C.replace("PFX", prefix.upper()).replace("NAME", prefix)
               .replace("QVALS", values(q)).replace("QDDVALS", values(qdd))
               .replace("QDVALS", values(qd)).replace("PVALS", values(p)))
    (tmp_path / "main.c").write_text(program)
    res = subprocess.run([CC, *CFLAGS, "main.c", f"{prefix}.c", "-o", "main", "-lm"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[:4000]
    run = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True, timeout=600)   # a hang guard only
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].split() == [str(n), str(R)]
    assert lines[1:1 + R] == list(base.names)
    Y = np.array([float(x) for x in lines[1 + R:1 + R + n * R]]).reshape(n, R)
    tau = np.array([float(x) for x in lines[1 + R + n * R:]])
    assert_close(Y, base.regressor(q, qd, qdd), rtol=RTOL, what=f"{path.stem}: standalone program's regressor")
    assert_close(tau, bp.inverse_dynamics(base.model(p), q, qd, qdd), rtol=RTOL,
                 what=f"{path.stem}: standalone program's inverse dynamics")


# -- robustness of the written files ---------------------------------------------------------------
def test_hostile_robot_name_cannot_break_the_code(tmp_path):
    """A robot's name goes into comments and a docstring: comment ends, quotes, backslashes stay harmless."""
    robot = bp.load_robot(PUMA)
    odd = bp.Robot(robot.joints, name='Arm */ /* """ \\N{x} \' ;', convention=robot.convention,
                   length_unit=robot.length_unit, angle_unit=robot.angle_unit, gravity=robot.gravity)
    base = bp.find_base_parameters(odd)
    py = export(odd, base, "python", tmp_path / "py", "odd")           # imports: no SyntaxError
    assert py.code.N_BASE == base.rank
    if CC is not None:
        export(odd, base, "c", tmp_path / "c", "odd")                  # compiles with -Wall -Wextra -Werror


def test_accuracy_is_stated_in_the_code_and_the_json(tmp_path):
    robot = bp.load_robot(PUMA)
    base = bp.find_base_parameters(robot)
    codegen.export(base, "c", prefix="puma", out_dir=str(tmp_path))
    doc = json.loads((tmp_path / "puma.json").read_text())
    assert doc["accuracy"]["exact"] is True and "exact" in doc["accuracy"]["note"]
    assert "Regroupings exact" in (tmp_path / "puma.h").read_text()
    skew = bp.load_robot(ROOT / "robots" / "skew7.yaml")           # odd twists: floating-point regroupings
    base = bp.find_base_parameters(skew)
    codegen.export(base, "python", prefix="skew", out_dir=str(tmp_path))
    doc = json.loads((tmp_path / "skew.json").read_text())
    assert doc["accuracy"]["exact"] is False and 0 < doc["accuracy"]["relative"] < 1e-12
    assert "floating point" in (tmp_path / "skew_dynamics.py").read_text()


def test_a_failed_export_changes_no_file(tmp_path):
    """The files are written as a set: when one cannot be written, none is replaced."""
    base = bp.find_base_parameters(bp.load_robot(PUMA))
    (tmp_path / "puma.c").mkdir()                                     # the source cannot be written
    with pytest.raises(bp.BaseParamError):
        codegen.export(base, "c", prefix="puma", out_dir=str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == ["puma.c"]                 # no header, no JSON, no temporaries


def test_prefix_rules():
    assert codegen.check_prefix("class", "c") == "class"              # a C identifier
    for bad, lang in (("class", "python"), ("_x", "c"), ("__x", "c"), ("a" * 65, "c"), ("1abc", "c")):
        with pytest.raises(codegen.ExportError, match="^prefix: "):       # the parameter; the CLI says --prefix
            codegen.check_prefix(bad, lang)
    with pytest.raises(codegen.ExportError, match="BaseParameters"):
        codegen.export(bp.load_robot(PUMA), "c")


def test_python_module_refuses_non_finite_states(exports):
    m = exports(PUMA, "python").code
    q = np.zeros(6)
    bad = q.copy()
    bad[2] = np.nan
    for args in ((bad, q, q), (np.array([bad, q]), np.zeros((2, 6)), np.zeros((2, 6)))):
        with pytest.raises(ValueError, match="a non-finite value"):
            m.regressor(*args)


def test_twist_constants_are_shared():
    """cos 45° = sin 45° and cos 60° = sin 30° are one constant each: no two graph constants differ by
    a rounding step (they would keep duplicate products that hash-consing should have shared)."""
    from baseparam.model.joint_model import exact_cos_sin
    assert exact_cos_sin(45, "deg")[0] == exact_cos_sin(45, "deg")[1]
    assert exact_cos_sin(30, "deg")[1] == exact_cos_sin(60, "deg")[0] == 0.5
    assert exact_cos_sin(np.pi / 4, "rad")[:2] == exact_cos_sin(45, "deg")[:2]
    robot = bp.Robot(tuple(bp.Joint("revolute", alpha=a, a=0.1, d=0.2) for a in (45, -45, 30, 60, 135)),
                     name="twists", angle_unit="deg")
    base = bp.find_base_parameters(robot)
    for r in codegen.routines(base):
        values = sorted(abs(v) for op, v in zip(r.graph.ops, r.graph.args) if op == "const" and v != 0)
        close = [(a, b) for a, b in zip(values, values[1:]) if a != b and abs(a - b) <= 4e-16 * b]
        assert not close, f"{r.name}: constants one rounding apart: {close[:3]}"
