"""Glob patterns of log names (``'runs/*.npz'``, ``'logs/**/*.csv'``), each folder walked once.

:func:`glob.glob` follows every symbolic link to a folder when it expands ``**``: a link back up the tree (``ln -s ..
logs/up``) is walked again at every depth, until the 40 links a path may pass through. One such link made a pattern
match each log under it 41 times (read 41 times, the standard deviations 6.4× too small); two made the walk
exponential (2⁴⁰ folders: ``identify R 'logs/**/*.csv'`` never ended). Here ``**`` matches each folder once, by its
real path: a link to a folder already walked (a loop, or a second name of one) is not walked again, a link to a folder
outside the tree is. Without a symbolic link the names matched are :func:`glob.glob`'s.
"""
from __future__ import annotations

import glob
import os

__all__ = ["matching_names"]


def matching_names(pattern):
    """The names ``pattern`` matches (unsorted), as ``glob.glob(pattern, recursive=True)`` gives them, but with
    each folder a ``**`` walks taken once (module notes).

    Parameters
    ----------
    pattern : str

    Returns
    -------
    list of str
    """
    parts = pattern.split(os.sep)
    if "**" not in parts:
        return glob.glob(pattern, recursive=True)
    at = parts.index("**")
    head = os.sep.join(parts[:at]) or (os.sep if at else "")      # '/**/…': the root, not the current folder
    tail = parts[at + 1:]
    found = []
    for top in _tops(head):
        folders = _folders_once(top)
        if not tail:        # 'top/**': top itself (as 'top/'), then every entry of every folder
            found += [os.path.join(top, "")] if top else []
            for folder in folders:
                found += glob.glob(_inside(folder, "*"))
        else:
            for folder in folders:
                found += matching_names(_inside(folder, os.sep.join(tail)))
    return found


def _tops(head):
    """The folders the part of a pattern before its ``**`` names ('' for the current folder)."""
    if glob.has_magic(head):
        return [name for name in glob.glob(head) if os.path.isdir(name)]
    return [head] if not head or os.path.isdir(head) else []


def _inside(folder, pattern):
    """``pattern`` below ``folder`` (its name escaped: a folder named 'a[1]' is that folder, not a pattern)."""
    return os.path.join(glob.escape(folder), pattern) if folder else pattern


def _folders_once(top):
    """``top`` and the folders below it that ``**`` matches (names not starting with '.'), depth first in name order,
    each real folder once: at each level the folders themselves before the links to folders, and a link whose real
    path was walked already is left out."""
    seen, order, stack = set(), [], [top]
    while stack:
        folder = stack.pop()
        real = os.path.realpath(folder or os.curdir)
        if real in seen:
            continue
        seen.add(real)
        order.append(folder)
        try:
            with os.scandir(folder or os.curdir) as entries:
                below = sorted((entry.is_symlink(), entry.name) for entry in entries
                               if not entry.name.startswith(".") and _is_folder(entry))
        except OSError:     # unreadable, or gone meanwhile: glob.glob skips it too
            continue
        stack.extend(os.path.join(folder, name) for _, name in reversed(below))
    return order


def _is_folder(entry):
    try:
        return entry.is_dir()
    except OSError:
        return False
