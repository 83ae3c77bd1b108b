"""Names imported on first use (PEP 562), for a package's ``__init__``.

``import baseparam`` then costs nothing, and ``bp.read_trajectory`` loads the trajectory readers
without the projection engine: each public name brings in only the module that defines it.
"""
from __future__ import annotations

import importlib
import sys


def lazy_names(package, where, public):
    """The ``__getattr__`` and ``__dir__`` of a package whose names load on first access.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    where : dict of str → str
        Public name → the submodule (relative to ``package``) that defines it.
    public : list of str
        The package's ``__all__``.

    Returns
    -------
    (callable, callable)
    """
    def __getattr__(name):
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", package), name)
        setattr(sys.modules[package], name, value)      # later lookups skip this hook
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(public))

    return __getattr__, __dir__
