"""Native kernels: an expression graph written out as C, compiled once into a cache, called by ctypes.

One sample of a 7-DOF arm's forward dynamics is about 2000 operations. As straight-line Python on
floats that costs ≈ 130 µs per call (CPython spends ≈ 35 ns on each statement), too slow for a
1 kHz loop and for simulating 10 s at 1 kHz with RK4 (40 000 evaluations) in a couple of seconds;
the same statements in C run in about a microsecond. So the graph is printed as C99 (one
``const double`` per node, nothing beyond ``<math.h>``), with an RK4 integrator around it, compiled
with the system C compiler into a cache directory keyed by the source's hash, and loaded with
ctypes. Where no compiler is found, or compiling fails, callers fall back to the straight-line
Python (:func:`load` returns None) — slower, never wrong.

Environment: ``BASEPARAM_CC`` names the compiler (default ``$CC``, else ``cc``; ``none`` turns
native code off); ``BASEPARAM_CACHE_DIR`` the cache (default ``$XDG_CACHE_HOME/baseparam`` or
``~/.cache/baseparam``).
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

# No optimization: on straight-line code of this size gcc's optimizer gains nothing (measured here, a
# 7-DOF arm: 1.9 µs per sample at -O0, -O1, -O2 and -O3 -march=native alike; a 30-body chain: the
# same at -O0 and -O1, slower at -O2) and costs compile time that grows faster than the code (30 bodies:
# 0.5 s at -O0, 12–15 s at -O1/-O2).
FLAGS = ("-O0", "-std=c99", "-fPIC", "-shared")
COMPILE_TIMEOUT = 300          # s: a 50-body chain's kernel is a few 10 000 lines
_LOADED: dict = {}


def compiler():
    """The C compiler command, or None when native code is off or no compiler is found."""
    name = os.environ.get("BASEPARAM_CC") or os.environ.get("CC") or "cc"
    if name.strip().lower() in ("none", "off", "0", ""):
        return None
    return shutil.which(name)


def cache_dir():
    root = os.environ.get("BASEPARAM_CACHE_DIR")
    if not root:
        root = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
                            "baseparam")
    return root


def load(source, functions, flags=FLAGS):
    """Compile (once, cached on disk) and load a C source; None when that is not possible.

    Parameters
    ----------
    source : str
    functions : dict of str → (restype, argtypes)
        The ctypes signatures to attach.
    flags : tuple of str
        Compiler flags (default :data:`FLAGS`).

    Returns
    -------
    ctypes.CDLL or None
    """
    cc = compiler()
    if cc is None:
        return None
    key = hashlib.sha256("\0".join((source, cc, *flags, sys.platform)).encode()).hexdigest()[:32]
    lib = _LOADED.get(key)
    if lib is not None:
        return lib
    path = os.path.join(cache_dir(), f"kernel_{key}.so")
    if not os.path.exists(path) and not _compile(cc, source, path, flags):
        return None
    try:
        lib = ctypes.CDLL(path)
        for name, (restype, argtypes) in functions.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, argtypes
    except (OSError, AttributeError):
        return None
    _LOADED[key] = lib
    return lib


def _compile(cc, source, path, flags):
    """Compile ``source`` into the shared library ``path`` (atomically: a temporary name, then rename)."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with tempfile.TemporaryDirectory(dir=os.path.dirname(path)) as tmp:
            src, lib = os.path.join(tmp, "kernel.c"), os.path.join(tmp, "kernel.so")
            with open(src, "w", encoding="utf-8") as stream:
                stream.write(source)
            done = subprocess.run([cc, *flags, "-o", lib, src, "-lm"], capture_output=True,
                                  timeout=COMPILE_TIMEOUT, check=False)
            if done.returncode != 0 or not os.path.exists(lib):
                return False
            os.replace(lib, path)
        return True
    except (OSError, subprocess.SubprocessError):
        return False


__all__ = ["cache_dir", "compiler", "load"]
