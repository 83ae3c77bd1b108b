"""Equations of motion in closed form, in the base parameters (``baseparam equations ROBOT``).

τ = W_b(q, q̇, q̈) β, grouped by base parameter: τ_i = Σ_r W_b[i, r] β_r, each β_r a named constant
defined by its regrouping (``find``). How each entry W_b[i, r] gets its closed form:

1. **The regressor graph over a polynomial ring.** The base regressor's expression graph
   (:func:`baseparam.dynamics.regressor_graph.build`, the pivot columns) is evaluated once, node by
   node in topological order, over python-flint's multivariate polynomials with rational
   coefficients in the generators s_k, c_k (sin and cos of joint k's angle), q_k (a prismatic
   joint's travel), q̇_k, q̈_k and the friction shapes. Every entry is then an exact polynomial:
   no ``simplify``, no expression swell (the graph already shares every subexpression). Why this
   route rather than the projection's Z columns on their trig basis: Z holds the Lagrangian, not
   the torques (its columns would still need Lagrange's derivatives), and is computed only on demand
   (``find --h5``, about 10⁵ rows for the PUMA 560), while the graph's evaluation over polynomials
   takes 0.02 s for the PUMA 560 (measured); the whole command takes about 7 s there, mostly SymPy
   building the printed expressions.
2. **Trigonometric identities by the basis.** Each polynomial is reduced modulo s_k² + c_k² − 1
   (python-flint's division by a Gröbner basis: s_k² ↦ 1 − c_k²), a normal form in which every
   identity of the angles holds: equal values are equal polynomials.
3. **Summed angles.** For consecutive parallel revolute axes (joint k's axis ±parallel to its
   parent's, found from the kinematics at a random pose), each entry is also written (a) with the
   summed angles φ_k = φ_parent ± q_k and (b) in Fourier form over the group's angles, where
   c2c3 − s2s3 is cos(q2 + q3) = c23 by itself, each with the rates relative or summed
   (q̈23 = q̈2 + q̈3); the form with the fewest operations is kept (:mod:`._trig`).
4. **Gravity as g.** The entries are computed with and without gravity; their difference divided by
   |g| is the gravity part, printed with the symbol g.

Constants of the graph are floats (the DH lengths in SI and their folded products); they are read
back as decimals of 12 significant digits, exact for the short decimals of a description, unless
those use 11 or 12 digits and the float is further than 1e-14 (relative) from them: then as its
shortest round-trip decimal (``repr``), so that geometry of more digits (CAD) is not cut to 12
(:func:`._trig._rational`).
"""
from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Integral, Real
from types import MappingProxyType
from typing import Optional

import numpy as np

from .._validation import (ABSURD, ABSURD_PARAMETER, check_entries, check_field_kinds, check_finite_fields, check_flag,
                           check_instance, check_name_fields, check_number, check_seed, is_real,
                           reduce_read_only_mappings, shown)
from ..errors import ArgumentError, ExportError, printable
from . import _shared_order
from ._printer import _safe
from ._trig import MAX_TERMS, _label, _rational, closed_forms

N_CHECK = 20          # random states of the printed verification
MAX_CHECK_STATES = 100_000   # verify()'s states: three (n_states, n_dof) arrays and their torques


@dataclass(frozen=True)
class Equations:
    """Closed-form equations of motion of a robot in its base parameters.

    Attributes
    ----------
    robot : Robot
    names : tuple of str, length R
        Base parameters in ``find``'s order (their pivots' names).
    symbols : tuple of sympy.Symbol, length R
        The symbol of each base parameter in :attr:`tau` (``XX2R`` when it is a regrouping, else the pivot's
        name).
    tau : sympy.Matrix, shape (n_dof, 1)
        τ_i = Σ_r W_b[i, r] β_r in the abbreviations of :attr:`abbreviations` (SI, g the gravity's magnitude).
    constants : mapping
        Base-parameter symbol → its regrouping, a SymPy expression in the standard parameters (SI).
    abbreviations : mapping
        Symbol → (SymPy definition in q, q̇, q̈, text), for s_k, c_k, summed angles and rates, friction shapes.
    operation_count : mapping
        Of the printed form: ``{"mul", "add", "sincos"}`` (x² one mul; summed angles and rates counted).
    code_count : mapping
        Of the exported inverse dynamics in base parameters (:func:`baseparam.codegen.export`), same keys.
    max_error : float or None
        max |τ_printed − τ_Newton–Euler| over random states and random parameters (N·m or N); None when
        not checked (``check=False``), rather than a NaN a JSON document could not hold.
    max_torque : float or None
        max |τ_Newton–Euler| over the same states, the scale of ``max_error``; None when not checked.
    gravity : float
        |g| (m/s²), the value of the symbol g.
    lengths : mapping
        With ``symbolic=``: each DH length symbol → its value in the robot (m).
    offsets : tuple of float
        Each joint's DH offset (rad or m), which :meth:`python_source` adds to q; empty: none.
    """

    robot: object
    names: tuple
    symbols: tuple = field(repr=False)
    tau: object = field(repr=False)
    constants: MappingProxyType = field(repr=False)
    abbreviations: MappingProxyType = field(repr=False)
    operation_count: MappingProxyType = field(repr=False)
    code_count: MappingProxyType = field(repr=False)
    max_error: Optional[float] = None
    max_torque: Optional[float] = None
    gravity: float = 9.81
    offsets: tuple = field(repr=False, default=())
    lengths: MappingProxyType = field(repr=False, default_factory=lambda: MappingProxyType({}))

    __reduce__ = reduce_read_only_mappings     # pickle, copy, deepcopy: the mappings as dicts, wrapped again

    def __post_init__(self):
        # a public class: one built by hand with a wrong kind of field is refused here, not deep in its methods
        import sympy

        from ..model.robot import Robot
        mapping, sequence, number = (Mapping, "a mapping"), ((tuple, list), "a tuple"), (Real, "a number")
        check_field_kinds(self, {"robot": (Robot, "a baseparam.Robot"), "names": sequence, "symbols": sequence,
                                 "tau": (sympy.MatrixBase, "a sympy.Matrix"), "constants": mapping,
                                 "abbreviations": mapping, "operation_count": mapping, "code_count": mapping,
                                 "max_error": ((Real, None), "a number or None"),
                                 "max_torque": ((Real, None), "a number or None"), "gravity": number,
                                 "offsets": sequence, "lengths": mapping})
        # what its texts read of them: a symbol per name, each in constants, the counts' keys, finite numbers (else a
        # NaN error would reach the repr, fewer offsets than joints python_source as a bare IndexError; none: no
        # offsets)
        check_name_fields(self, ("names",))
        if len(self.symbols) != len(self.names) or not all(isinstance(s, sympy.Symbol) for s in self.symbols):
            raise ArgumentError(f"Equations.symbols: expected {len(self.names)} sympy Symbols (one per name), got "
                                f"{shown(self.symbols)}")
        missing = next((s for s in self.symbols if s not in self.constants), None)
        if missing is not None:
            raise ArgumentError(f"Equations.constants: no entry for the symbol {missing}")
        counts = dict.fromkeys(("mul", "add", "sincos"), (Integral, "a whole number"))
        check_entries(dict(self.operation_count), "Equations.operation_count", counts)
        check_entries(dict(self.code_count), "Equations.code_count", counts)
        check_finite_fields(self, [name for name in ("max_error", "max_torque", "gravity")
                                   if getattr(self, name) is not None])
        # what its texts unpack (else a bare ValueError or AttributeError from the LaTeX names)
        if not all(isinstance(s, sympy.Symbol) and is_real(v) for s, v in self.lengths.items()):
            raise ArgumentError(f"Equations.lengths: expected {{sympy Symbol: a finite number (m)}}, got "
                                f"{shown(dict(self.lengths))}")
        if not all(isinstance(s, sympy.Symbol) and isinstance(v, tuple) and len(v) == 3
                   and isinstance(v[0], sympy.Basic) and isinstance(v[1], str) and isinstance(v[2], str)
                   for s, v in self.abbreviations.items()):
            raise ArgumentError("Equations.abbreviations: expected {sympy Symbol: (definition, code, LaTeX)}, got "
                                f"{shown(dict(self.abbreviations))}")
        n_dof = self.robot.n_dof
        if len(self.offsets) not in (0, n_dof) or not all(map(is_real, self.offsets)):
            raise ArgumentError(f"Equations.offsets: expected {n_dof} finite numbers (one per joint) or none, got "
                                f"{shown(self.offsets)}")

    def _repr_markdown_(self):
        return self.markdown()

    def _printed(self):
        """This result's memo of its printed forms: the orders of its sums (:mod:`._shared_order`) and its Python
        module, made at first use in the instance's own ``__dict__`` (a frozen dataclass): printing a 7-joint arm's
        equations once for the check, then for --python, --json and the Markdown, ordered every sum four times."""
        return self.__dict__.setdefault("_printing", {"orders": {}})

    def _checked(self, max_error, max_torque):
        """This result with the check's figures, keeping its printed forms (the check printed its Python module;
        the figures are printed in none of them but the Markdown, which reads them at each call)."""
        checked = dataclasses.replace(self, max_error=max_error, max_torque=max_torque)
        checked.__dict__["_printing"] = self._printed()
        return checked

    def __repr__(self):
        c = self.operation_count
        return (f"Equations(robot={self.robot.name!r}, n_base={len(self.names)}, mul={c['mul']}, add={c['add']}, "
                f"max_error={'unchecked' if self.max_error is None else format(self.max_error, '.1e')})")

    # -- LaTeX and Markdown --------------------------------------------------------------------------
    def _latex_names(self):
        import sympy

        out = {}
        for sym in self.symbols:
            head = sym.name.rstrip("0123456789R")
            out[sym] = rf"\mathrm{{{head}}}_{{{sym.name[len(head):]}}}"
        for k in range(self.robot.n_dof):
            for name, tex in ((f"q{k + 1}", f"q_{{{k + 1}}}"), (f"qd{k + 1}", rf"\dot{{q}}_{{{k + 1}}}"),
                              (f"qdd{k + 1}", rf"\ddot{{q}}_{{{k + 1}}}")):
                out[sympy.Symbol(name, real=True)] = tex
        out[sympy.Symbol("g", positive=True)] = "g"
        out.update({sym: f"{sym.name[0]}_{{{sym.name[1:]}}}" for sym in self.lengths})
        out.update({sym: tex for sym, (_, _, tex) in self.abbreviations.items()})
        return out

    def used_abbreviations(self):
        """The abbreviations the equations use: {symbol: (definition, code, LaTeX)}."""
        used = set().union(*(e.free_symbols for e in self.tau))
        return {s: v for s, v in self.abbreviations.items() if s in used}

    def latex(self):
        """The equations as LaTeX (an ``aligned`` block), τ_i = … per joint."""
        names, orders = self._latex_names(), self._printed()["orders"]
        rows = [rf"\tau_{{{i + 1}}} &= {_shared_order.latex(e, orders, symbol_names=names)}"
                for i, e in enumerate(self.tau)]
        return "\\begin{aligned}\n" + " \\\\\n".join(rows) + "\n\\end{aligned}"

    def constants_latex(self):
        """One LaTeX line per base parameter: its symbol = its regrouping."""
        names, orders = self._latex_names(), self._printed()["orders"]
        return [f"{names[s]} = {_shared_order.latex(self.constants[s], orders)}" for s in self.symbols]

    def markdown(self):
        """Markdown with LaTeX formulas: constants, abbreviations, equations, operation counts, the check."""
        names, orders = self._latex_names(), self._printed()["orders"]
        c, k = self.operation_count, self.code_count
        lines = [f"# Equations of motion of {self.robot.name}", "",
                 f"τ = W_b(q, q̇, q̈) β in its {len(self.names)} base parameters (SI; g = {self.gravity:.12g} m/s²).", "",
                 "## Base parameters (grouped constants)", ""]
        lines += [f"- ${line}$" for line in self.constants_latex()]
        if self.lengths:
            lines += ["", "DH lengths kept as symbols (the robot's values, m): " +
                      ", ".join(f"${names[s]}$ = {v:.12g}" for s, v in self.lengths.items())]
        lines += ["", "## Abbreviations", ""]
        lines += [f"- ${names[s]} = {_shared_order.latex(d, orders, symbol_names=names)}$"
                  for s, (d, _, _) in self.used_abbreviations().items()] or ["none"]
        lines += ["", "## Equations", "", "$$", self.latex(), "$$", "",
                  "## Cost and check", "",
                  f"- printed form: {c['mul']} mul, {c['add']} add, {c['sincos']} sin/cos pairs",
                  f"- exported code (`baseparam export`, inverse dynamics): {k['mul']} mul, {k['add']} add, "
                  f"{k['sincos']} sin/cos pairs",
                  f"- max |τ_printed − τ_Newton–Euler| at {N_CHECK} random states: {self.max_error:.3g} "
                  f"(max |τ| {self.max_torque:.3g})" if self.max_error is not None else
                  "- not checked against Newton–Euler (check=False)", ""]
        return "\n".join(lines)

    def to_dict(self):
        """The ``equations --json`` document: SymPy strings (``sympy.sympify`` parses them)."""
        orders = self._printed()["orders"]

        def text(expr):
            return _shared_order.text(expr, orders)
        return {
            "robot": self.robot.name,
            "base": [{"name": n, "symbol": s.name, "regrouping": text(self.constants[s])}
                     for n, s in zip(self.names, self.symbols)],
            "abbreviations": {s.name: text(d) for s, (d, _, _) in self.used_abbreviations().items()},
            "gravity": self.gravity,
            "tau": [text(e) for e in self.tau],
            "operation_count": dict(self.operation_count),
            "code_operation_count": dict(self.code_count),
            "max_error": self.max_error,
            "max_torque": self.max_torque,
            "lengths": {s.name: v for s, v in self.lengths.items()},
        }

    # -- Python ------------------------------------------------------------------------------------------
    def python_source(self):
        """A module defining ``tau(q, qd, qdd, p)`` (numpy; arrays (n_dof,) or (n_samples, n_dof); p the base parameters
        in ``find``'s order, SI) that evaluates the printed equations; ValueError for a wrong shape, a non-finite value,
        a state beyond ±``MAX_STATE`` or a parameter beyond ±``MAX_PARAMETER`` (the module's constants, the exported
        code's bounds)."""
        printed = self._printed()
        if "python" not in printed:
            printed["python"] = self._python_source(printed["orders"])
        return printed["python"]

    def _python_source(self, orders):
        """:meth:`python_source`, printed anew (the orders of the sums in ``orders``)."""
        n = self.robot.n_dof
        used = set().union(*(e.free_symbols for e in self.tau))
        # the name through the exported code's filter: a '"""' or a '\\N' in it would end the docstring or break its
        # escape
        lines = [f'"""Equations of motion of {_safe(self.robot.name)} in its base parameters (baseparam equations)."""',
                 "import numpy as np", "", f"NAMES = {tuple(self.names)!r}", f"g = {self.gravity!r}"]
        lines += [f"{s.name} = {v!r}      # m, a DH length kept as a symbol" for s, v in self.lengths.items()]
        lines += ["# Beyond these magnitudes a state or a parameter is no robot's, and the products would overflow",
                  "# to non-finite values (inputs of 1e154 square to 1e308): refused, as baseparam's functions refuse "
                  "them",
                  f"MAX_STATE, MAX_PARAMETER = {ABSURD!r}, {ABSURD_PARAMETER!r}"]
        lines += ["", "", _CHECKED.format(n=n), "",
                 "def tau(q, qd, qdd, p):",
                 '    """tau (…, n) = W_b(q, qd, qdd) p: q, qd, qdd arrays (n,) or (S, n); p (R,) in NAMES order."""',
                 "    q, qd, qdd, p = _checked(q, qd, qdd, p)"]
        lines += [f"    {s.name} = p[{r}]" for r, s in enumerate(self.symbols) if s in used]
        names = {s.name for s in used}
        for k in range(n):
            offset = self.offsets[k] if self.offsets else 0.0        # none given (the field's default): none
            for name, code in ((f"q{k + 1}", f"q[..., {k}] + {offset!r}" if offset else
                                f"q[..., {k}]"), (f"qd{k + 1}", f"qd[..., {k}]"), (f"qdd{k + 1}", f"qdd[..., {k}]")):
                if name in names:
                    lines.append(f"    {name} = {code}")
        lines += [f"    {s.name} = {code}" for s, (_, code, _) in self.abbreviations.items() if s.name in names]
        lines.append("    zero = np.zeros(np.broadcast_shapes(q.shape, qd.shape, qdd.shape)[:-1])")
        for i, e in enumerate(self.tau):
            lines.append(f"    t{i + 1} = zero + ({_shared_order.python(e, orders, fully_qualified_modules=False)})")
        lines.append(f"    return np.stack([{', '.join(f't{i + 1}' for i in range(n))}], axis=-1)")
        return "\n".join(lines) + "\n"


# The module's check of its arguments, with the bounds and words of the exported code's (codegen._python_source)
_CHECKED = '''def _checked(q, qd, qdd, p):
    """The arguments as float arrays; ValueError for a wrong shape, a non-finite value, or a magnitude no robot has."""
    q, qd, qdd, p = (np.asarray(x, dtype=float) for x in (q, qd, qdd, p))
    for x in (q, qd, qdd):
        if x.ndim < 1 or x.shape[-1] != {n}:
            raise ValueError(f"expected shape ({n},) or (S, {n}), got {{x.shape}}")
        if not (np.abs(x) <= MAX_STATE).all():
            raise ValueError(f"the state arrays contain a non-finite value, or a value beyond ±{{MAX_STATE:g}}")
    if p.shape != (len(NAMES),):
        raise ValueError(f"p: expected shape ({{len(NAMES)}},), got {{p.shape}}")
    if not (np.abs(p) <= MAX_PARAMETER).all():
        raise ValueError(f"p: a non-finite value, or a value beyond ±{{MAX_PARAMETER:g}}")
    return q, qd, qdd, p
'''


# -- building the equations --------------------------------------------------------------------------------
def equations(base_or_robot, parameters="pseudo", *, check=True, seed=0, max_memory=None,
              max_terms=MAX_TERMS, symbolic=None) -> Equations:
    """Equations of motion in closed form, grouped by base parameter (module docstring: how).

    Parameters
    ----------
    base_or_robot : BaseParameters or Robot
        A robot is projected first (:func:`~baseparam.find_base_parameters`).
    parameters : {'pseudo', 'khalil'}
        With a robot: its parameterization.
    check : bool
        Evaluate the equations at random states against Newton–Euler (:attr:`Equations.max_error`).
    seed : int
    symbolic : str or sequence of str, optional
        Named DH lengths (``"a2,d4"``, ``"all"``: as ``find --symbolic``) kept as symbols (m): the
        regroupings and every coefficient become polynomials in them (:mod:`._symbolic_lengths`). ``"all"``
        on a robot whose constant lengths are all 0: the numeric equations, with a DescriptionWarning.
    max_terms : int
        Refuse (:class:`~baseparam.errors.ResourceLimitError`) a closed form of more terms than this
        (a generic 7-joint arm has about 350 000: too long to print, and to build in SymPy).
    max_memory : int or str, optional
        Memory the projection and the closed forms may use, as for :func:`~baseparam.find_base_parameters`.

    Returns
    -------
    Equations
    """
    import sympy

    from ..dynamics.printing import EXPORTED, PYTHON_EXPORT
    from ..model.friction import refuse_unresolved, shape_code
    from ..model.robot import Robot, require_fixed_base
    from ..model.value import agreeing_parameterization
    from ..projection.base_set import BaseParameters, find_base_parameters
    from ..projection.symbolic import numeric_if_no_length, parse_symbols
    from ._routines import operation_counts, routines

    # before the projection: a bound of 0 or -1 terms refuses every robot, after the whole work
    max_terms = check_number(max_terms, "max_terms", low=1, integer=True)
    check_flag(check, "check")
    # numpy's generators take no negative seed; an int, as numpy's small integers wrap around in arithmetic
    seed = check_seed(seed)
    if isinstance(base_or_robot, Robot):
        require_fixed_base(base_or_robot, "equations")
        refuse_unresolved(base_or_robot, **EXPORTED)       # before the projection, not after its whole work
        symbolic = numeric_if_no_length(base_or_robot, symbolic)
        if symbolic is not None:        # the names checked before the projection, not after its whole work
            parse_symbols(base_or_robot, symbolic)
        base = find_base_parameters(base_or_robot, parameters, max_memory=max_memory)
    elif isinstance(base_or_robot, BaseParameters):
        base = base_or_robot
        agreeing_parameterization(parameters, base.parameters, "pseudo", "the base set",
                                  "the base set gives it: leave parameters out")
        require_fixed_base(base.robot, "equations")
        refuse_unresolved(base.robot, **EXPORTED)
        symbolic = numeric_if_no_length(base.robot, symbolic)
    else:
        raise ArgumentError(f"equations: expected a Robot or BaseParameters, got {type(base_or_robot).__name__}")
    robot, n, R = base.robot, base.robot.n_dof, base.rank
    found = closed_forms(base, seed, max_terms, max_memory=max_memory)
    forms, chain, offsets = found.forms, found.chain, found.offsets
    lengths, regroupings = {}, None
    if symbolic is not None:
        from ._symbolic_lengths import symbolic_forms
        forms, names, values, regroupings = symbolic_forms(base, symbolic, found, seed, max_terms, max_memory)
        length_symbols = [sympy.Symbol(name, real=True) for name in names]
        lengths = {sym_: values[name] for sym_, name in zip(length_symbols, names)}

    # sympy symbols and their definitions
    qs = sympy.symbols(f"q1:{n + 1}", real=True)
    symbol, abbreviations = {}, {}

    def add_abbrev(name, sym_name, definition, code, tex):
        symbol[name] = sym = sympy.Symbol(sym_name, real=True)
        abbreviations[sym] = (definition, code, tex)
        return sym

    def signed(signs, texts):
        return " + ".join(f"{'-' if sign < 0 else ''}{text}" for sign, text in zip(signs, texts))

    def angle_code(k):
        text = f"q[..., {k}]"
        return text if offsets[k] == 0.0 else f"({text} + {offsets[k]!r})"

    for k in range(n):
        if found.revolute[k]:
            theta = qs[k] + offsets[k]
            add_abbrev(f"s{k}", f"s{k + 1}", sympy.sin(theta), f"np.sin({angle_code(k)})", f"s_{{{k + 1}}}")
            add_abbrev(f"c{k}", f"c{k + 1}", sympy.cos(theta), f"np.cos({angle_code(k)})", f"c_{{{k + 1}}}")
            if len(chain[k]) > 1:       # the summed angle of k's group, and its rates: members signed
                lab, tag = _label(chain[k], n), _label(chain[k], n).replace(",", "_")
                signs = [1 if m == chain[k][0] else found.parallel.get(m, 1) for m in chain[k]]
                # the members' offsets as in the code (s12 = sin(q1 + 30° + q2)): the definition printed in the
                # Markdown and the JSON left them out, which the module's check could not see
                phi = sum(sign * (qs[m] + offsets[m]) for sign, m in zip(signs, chain[k]))
                code = signed(signs, (angle_code(m) for m in chain[k]))
                add_abbrev(f"S{k}", f"s{tag}", sympy.sin(phi), f"np.sin({code})", f"s_{{{lab}}}")
                add_abbrev(f"C{k}", f"c{tag}", sympy.cos(phi), f"np.cos({code})", f"c_{{{lab}}}")
                for rate, arg, dots in (("Qd", "qd", r"\dot"), ("Qdd", "qdd", r"\ddot")):
                    definition = sum(sign * sympy.Symbol(f"{arg}{m + 1}", real=True)
                                     for sign, m in zip(signs, chain[k]))
                    add_abbrev(f"{rate}{k}", f"{arg}{tag}", definition,
                               signed(signs, (f"{arg}[..., {m}]" for m in chain[k])), rf"{dots}{{q}}_{{{lab}}}")
        elif offsets[k]:    # d_k = q_k + offset, named: a bare q_k in the Markdown and the JSON read as q_k alone
            add_abbrev(f"d{k}", f"d{k + 1}", qs[k] + offsets[k], f"q[..., {k}] + {offsets[k]!r}", f"d_{{{k + 1}}}")
        else:
            symbol[f"d{k}"] = sympy.Symbol(f"q{k + 1}", real=True)
        symbol[f"qd{k}"] = sympy.Symbol(f"qd{k + 1}", real=True)
        symbol[f"qdd{k}"] = sympy.Symbol(f"qdd{k + 1}", real=True)
    # friction shapes: c(q̇) (sign or its smooth model) and s(q̇) (Stribeck)
    # (a scale left 'auto', which the written module cannot hold, was refused before the projection)
    for k in range(n):
        model = robot.joints[k].friction_model
        c_code, s_code = shape_code(model, f"qd[..., {k}]", PYTHON_EXPORT)
        qd_k = sympy.Symbol(f"qd{k + 1}", real=True)
        add_abbrev(f"sgn{k}", f"sg{k + 1}", sympy.Function("c_friction")(qd_k) if model is not None and
                   model.coulomb == "smooth" else sympy.sign(qd_k), _numpy(c_code), rf"\sigma_{{{k + 1}}}")
        if s_code is not None:
            add_abbrev(f"stb{k}", f"sb{k + 1}", sympy.Function("s_stribeck")(qd_k), _numpy(s_code),
                       rf"\varsigma_{{{k + 1}}}")
    gsym = sympy.Symbol("g", positive=True)
    gens_sym = [symbol.get(name) for name in found.ring.names]

    def to_sympy(terms):
        """Collected by rate monomials: Σ rate · (trig polynomial)."""
        groups = {}
        for (exps, key), coef in terms.items():
            rate = tuple(e if i in rate_set else 0 for i, e in enumerate(exps))
            rest = tuple(0 if i in rate_set else e for i, e in enumerate(exps))
            groups.setdefault(rate, []).append((rest, key, coef))
        total = sympy.Integer(0)
        for rate, items in groups.items():
            # the common monomial and the common rational factor outside the sum (no factoring beyond)
            common = tuple(min(rest[i] for rest, _, _ in items) for i in range(len(rate)))
            coefs = [c for _, _, c in items]
            if all(isinstance(c, Fraction) for c in coefs):
                num = math.gcd(*[c.numerator for c in coefs])
                den = math.lcm(*[c.denominator for c in coefs])
                content = Fraction(num, den) * (-1 if all(c < 0 for c in coefs) else 1)
                coefs = [_q(c / content) for c in coefs]
            else:                   # polynomials in the symbolic lengths
                content = Fraction(1)
                coefs = [_length_poly(c) for c in coefs]
            # each term one product of its three factors (no Rational times a sum among them, which two at a time
            # would distribute): the same canonical product as c·m·t left to right, one flattening instead of two
            inner = sympy.Add(*[sympy.Mul(c, _mono(tuple(e - m for e, m in zip(rest, common))), trig_product(key))
                                for (rest, key, _), c in zip(items, coefs)])
            total += _q(content) * _mono(common) * _mono(rate) * inner
        return total

    def trig_symbol(g, kind, multiples):
        """cos/sin of n·θ (n: the ``multiples``) over group g's members: an abbreviation (c23, s2, c2(23),
        cos(2q2 + q3))."""
        members = found.fourier_groups[g]
        used = [(m, x) for m, x in zip(members, multiples) if x]
        if len(used) == 1 and used[0][1] == 1:
            return symbol[f"{kind}{used[0][0]}"]
        ks = [m for m, _ in used]
        mult = {x for _, x in used}
        position = [members.index(m) for m in ks]
        run = len(mult) == 1 and position == list(range(position[0], position[0] + len(ks)))
        lab = _label(ks, n) if run else None
        if run and mult == {1}:
            code, tex = f"{kind}{lab.replace(',', '_')}", f"{kind}_{{{lab}}}"
        elif run:
            x = mult.pop()
            code, tex = f"{kind}{lab.replace(',', '_')}_{x}", rf"{kind}_{{{x}\cdot{lab}}}"
        else:
            code = kind + "_" + "_".join(f"{'m' if x < 0 else ''}{abs(x) if abs(x) != 1 else ''}q{m + 1}"
                                         for m, x in used)
            tex = None
        if code in by_code:
            return by_code[code]
        angle = sum(x * (qs[m] + offsets[m]) for m, x in used)
        fn = sympy.cos if kind == "c" else sympy.sin
        text = " + ".join(f"{x}*{angle_code(m)}" if x != 1 else angle_code(m) for m, x in used)
        tex = tex or f"\\{fn.__name__}(" + sympy.latex(angle) + ")"
        by_code[code] = sym = sympy.Symbol(code, real=True)
        abbreviations[sym] = (fn(angle), f"np.{fn.__name__}({text})", tex)
        return sym
    by_code = {}

    def _q(x):
        return sympy.Rational(x.numerator, x.denominator)

    def _length_poly(poly):
        return sympy.Add(*[_q(v) * sympy.Mul(*[x ** k for x, k in zip(length_symbols, e)]) for e, v in poly.items()])

    # the products below recur across the terms (a 7-joint arm's 43 000 monomials are a few hundred): each built once,
    # the same SymPy object as building it again (a pure function of its key), a fifth of the closed form's time
    @functools.cache
    def _mono(exps):
        return sympy.Mul(*[gens_sym[i] ** e for i, e in enumerate(exps) if e])

    @functools.cache
    def trig_product(key):
        return sympy.Mul(*[trig_symbol(*f) for f in key])
    rate_set = set(found.rate_index)

    regrouped = [any(v != 0 for c, v in enumerate(base.Y[r]) if c != base.pivots[r]) for r in range(R)]
    syms = tuple(sympy.Symbol(name + ("R" if regrouped[r] else ""), real=True) for r, name in enumerate(base.names))
    standard = [sympy.Symbol(s, real=True) for s in base.standard_names]
    constants = {}
    for r, s in enumerate(syms):
        if regroupings is not None:
            constants[s] = sympy.Add(*[_length_poly(poly) * sympy.Symbol(name, real=True)
                                       for name, poly in regroupings[r].items()])
        else:
            constants[s] = sympy.Add(*[_q(_rational(v)) * standard[c] for c, v in enumerate(base.Y[r]) if v != 0])
    # τ_j = Σ_r β_r (dynamic part + g · gravity part); a zero entry adds nothing
    tau = sympy.Matrix([sum((sym * (to_sympy(d) + gsym * to_sympy(s)) for sym, (d, s) in zip(syms, row)),
                            sympy.Integer(0)) for row in forms])
    count = operation_count(tau, abbreviations)
    code = operation_counts(routines(base, ["inverse_dynamics"])[0], robot)
    eq = Equations(robot, tuple(base.names), syms, tau, MappingProxyType(constants),
                   MappingProxyType(abbreviations), MappingProxyType(count),
                   MappingProxyType({k: code[k] for k in ("mul", "add", "sincos")}),
                   gravity=found.gravity, offsets=tuple(offsets), lengths=MappingProxyType(lengths))
    if check:
        err, scale = verify(eq, base, seed=seed)
        # the check's verdict, not only its figure: else a nearly special geometry (PUMA's alpha3 = 90.0000001°)
        # would print equations 7 % off Newton–Euler with exit status 0 (the exact ones agree to 1e-14 relative)
        if not err <= 1e-6 * scale:
            raise ExportError(f"equations: {robot.name}: the closed form differs from Newton–Euler by {err:.3g} at "
                              f"random states (max |τ| {scale:.3g}): a nearly special angle or length leaves its "
                              "coefficients inexact; write the special value, or evaluate with baseparam export")
        eq = eq._checked(err, scale)
    return eq


def _numpy(code):
    """Exported Python's friction-shape code (:func:`~baseparam.model.friction.shape_code`) calling numpy's
    functions."""
    for name in ("exp", "sign", "tanh"):
        code = code.replace(f"{name}(", f"np.{name}(")
    return code


def _operations(e):
    """(mul, add) of evaluating a SymPy expression as printed: a sum of k terms k − 1 additions, a product
    of k factors k − 1 multiplications (a factor −1 free, a coefficient ±1 free), x^k k − 1 mul."""
    import sympy

    if e.is_Atom:
        return 0, 0
    counts = [_operations(a) for a in e.args]
    mul, add = sum(m for m, _ in counts), sum(s for _, s in counts)
    if isinstance(e, sympy.Add):
        add += len(e.args) - 1
    elif isinstance(e, sympy.Mul):
        factors = [a for a in e.args if not (a.is_Number and abs(a) == 1)]
        mul += max(len(factors) - 1, 0)
    elif isinstance(e, sympy.Pow) and e.exp.is_Integer and e.exp > 1:
        mul += int(e.exp) - 1
    return mul, add


def operation_count(expressions, abbreviations=None):
    """Operations of evaluating equations as printed, counted as :attr:`Equations.operation_count` counts them.

    A sum of k terms is k − 1 additions, a product of k factors k − 1 multiplications (a factor ±1 free), x^k
    k − 1 multiplications; each abbreviation the expressions use adds its own cost: an angle's sin and cos one
    ``sincos`` per angle (the additions and multiplications of a summed angle once), a summed rate its additions.

    Parameters
    ----------
    expressions : sympy expression, sympy.Matrix, or sequence of sympy expressions
        The printed right-hand sides (τ_i), in abbreviation symbols.
    abbreviations : mapping of sympy.Symbol → sympy expression, optional
        What each abbreviation symbol stands for: ``sin(q2 + q3)``, ``cos(q1)``, a summed rate ``qdd2 + qdd3``.
        A value may also be a tuple whose first item is the definition, as :attr:`Equations.abbreviations`
        holds them, so ``operation_count(eq.tau, eq.abbreviations) == eq.operation_count``.

    Returns
    -------
    dict
        ``{"mul": int, "add": int, "sincos": int}``.
    """
    import sympy

    if isinstance(expressions, sympy.MatrixBase):       # no Iterable: it iterates through __getitem__
        expressions = list(expressions)
    elif isinstance(expressions, sympy.Basic):
        expressions = [expressions]
    expressions = list(check_instance(expressions, "expressions", Iterable,
                                      "a sympy expression, a sympy.Matrix or a sequence of them"))
    for e in expressions:
        check_instance(e, "expressions", sympy.Basic, "a sympy expression, a sympy.Matrix or a sequence of them")
    abbreviations = check_instance(abbreviations, "abbreviations", Mapping, "a mapping of symbol → definition",
                                   allow_none=True) or {}

    def definition(value):
        value = value[0] if isinstance(value, tuple) and value else value
        return check_instance(value, "abbreviations", sympy.Basic, "a mapping of symbol → sympy definition")

    counts = [_operations(e) for e in expressions]
    mul, add = sum(m for m, _ in counts), sum(a for _, a in counts)
    used = set().union(*(e.free_symbols for e in expressions))
    angles = set()
    for d in (definition(abbreviations[s]) for s in used if s in abbreviations):
        if isinstance(d, (sympy.sin, sympy.cos)):
            angles.add(d.args[0])
        elif isinstance(d, sympy.Add):
            add += len(d.args) - 1
    for a in angles:
        if isinstance(a, sympy.Add):
            add += len(a.args) - 1 - sum(1 for x in a.args if x.is_Number)
            mul += sum(1 for x in a.args if isinstance(x, sympy.Mul))
    return {"mul": mul, "add": add, "sincos": len(angles)}


def verify(eq, base, n_states=N_CHECK, seed=0):
    """max |τ_printed − τ_NE| at random states and random standard parameters, and max |τ_NE|.

    The printed form runs through its own module (:meth:`Equations.python_source`); Newton–Euler is
    :func:`baseparam.inverse_dynamics` on the standard parameters whose base parameters are p.
    """
    from ..dynamics import inverse_dynamics
    from ..model import Model
    from ..projection.base_set import BaseParameters

    check_instance(eq, "eq", Equations, "the Equations of equations(robot)")     # not an AttributeError inside
    check_instance(base, "base", BaseParameters, "the BaseParameters of find_base_parameters(robot)")
    # both refused in one line, not by numpy's own errors (an allocation beyond memory, a seed it cannot take)
    n_states = check_number(n_states, "n_states", low=1, high=MAX_CHECK_STATES, integer=True)
    rng = np.random.default_rng(check_seed(seed))
    n = base.robot.n_dof
    p_std = rng.uniform(0.1, 1.0, len(base.standard_names))
    q, qd, qdd = (rng.uniform(-2.0, 2.0, (n_states, n)) for _ in range(3))
    expected = inverse_dynamics(Model(base.robot, p_std, base.parameters), q, qd, qdd)
    got = load_module(eq.python_source()).tau(q, qd, qdd, base.from_standard(p_std))
    return float(np.max(np.abs(got - expected))), float(np.max(np.abs(expected)))


def load_module(source, name="baseparam_equations"):
    """The module of :meth:`Equations.python_source` (or any source) compiled in memory.

    Raises
    ------
    ArgumentTypeError
        ``source`` or ``name`` not text.
    ArgumentError
        ``source`` is not Python (compile's SyntaxError, or a NUL character), in one line.
    """
    import types

    for value, label in ((source, "source"), (name, "name")):
        check_instance(value, label, str, "Python source text" if label == "source" else "a module name (str)")
    try:
        code = compile(source, f"<{name}>", "exec")
    except (SyntaxError, ValueError) as exc:        # ValueError: a NUL character
        where = f" (line {exc.lineno})" if getattr(exc, "lineno", None) else ""
        raise ArgumentError(f"source: not Python: {printable(getattr(exc, 'msg', None) or exc)}{where}") from None
    module = types.ModuleType(name)
    exec(code, module.__dict__)
    return module


__all__ = ["Equations", "equations", "load_module", "operation_count", "verify"]
