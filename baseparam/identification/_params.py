"""scikit-learn's parameter protocol (``get_params``/``set_params``, used by ``clone`` and grid searches),
derived from the constructor's signature as in scikit-learn's ``BaseEstimator``: a setting added to
``__init__`` is a parameter without another line to write."""
from __future__ import annotations

import inspect

from .._checks import check_flag, shown
from ..errors import SettingsError


class ParamsFromInit:
    """Base class: the keyword arguments of ``__init__`` are the estimator's parameters, each stored
    unchanged under its own name (the scikit-learn convention)."""

    @classmethod
    def _param_names(cls):
        signature = inspect.signature(cls.__init__)
        return sorted(name for name, p in signature.parameters.items()
                      if name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))

    def get_params(self, deep=True):
        """The constructor's arguments by name; with ``deep``, also ``name__sub`` for those that are
        estimators themselves."""
        deep = check_flag(deep, "deep")
        out = {}
        for name in self._param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{name}__{key}", sub) for key, sub in value.get_params().items())
            out[name] = value
        return out

    def set_params(self, **params):
        """Set constructor arguments (``name__sub`` for a nested estimator's); unknown names →
        SettingsError (a DataError too).

        Returns
        -------
        self
        """
        names = self._param_names()
        plain, nested = {}, {}
        for key, value in params.items():       # every name checked before any is set: a refused call changes nothing
            name, _, sub = key.partition("__")  # (set_params(method='wls', bogus=1) set method, then refused bogus)
            if name not in names or (sub and not hasattr(getattr(self, name), "set_params")):
                raise SettingsError(f"set_params: unknown parameter {shown(key)} (expected one of {', '.join(names)})")
            if sub:
                nested.setdefault(name, {})[sub] = value
            else:
                plain[name] = value
        before, done = {name: getattr(self, name) for name in plain}, []
        try:
            for name, value in plain.items():
                setattr(self, name, value)
            for name, subs in nested.items():   # a nested estimator's refusal: this one's values back too
                inner = getattr(self, name)
                old = inner.get_params()
                previous = {key: old[key] for key in subs if key in old}
                inner.set_params(**subs)
                done.append((inner, previous))
        except BaseException:
            # and the nested estimators changed before it (set_params(a__x=1, b__bogus=2) kept a's x), last first
            for inner, previous in reversed(done):
                inner.set_params(**previous)
            for name, value in before.items():
                setattr(self, name, value)
            raise
        return self
