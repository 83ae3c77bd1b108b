"""matplotlib, imported on first use, and figures written atomically: shared by every stage's plots.

The rest of the package never imports matplotlib; scripts and the CLI get the non-interactive
Agg backend unless MPLBACKEND says otherwise, notebooks keep theirs.
"""
from __future__ import annotations

import io
import os
import sys

from ._atomic import atomic_path


def pyplot():
    """``matplotlib.pyplot``, with the Agg backend outside notebooks (scripts and the CLI have no display)."""
    import matplotlib
    if not os.environ.get("MPLBACKEND") and "ipykernel" not in sys.modules:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def supported_format(path):
    """None if matplotlib can write ``path``'s format (by extension), else what is wrong."""
    plt = pyplot()
    ext = os.path.splitext(os.fspath(path))[1].lstrip(".").lower()
    formats = plt.figure().canvas.get_supported_filetypes()
    plt.close("all")
    if not ext:
        return None                    # PNG by default
    if ext not in formats:
        return f"unsupported plot format '.{ext}' (use one of {', '.join('.' + f for f in sorted(formats))})"
    return None


def save_figure(fig, path, dpi=110):
    """Write ``fig`` to ``path`` (format from its extension, PNG without one) atomically, then close it."""
    plt = pyplot()
    ext = os.path.splitext(os.fspath(path))[1] or ".png"
    formats = fig.canvas.get_supported_filetypes()
    if ext[1:].lower() not in formats:      # matplotlib's own ValueError said neither the file nor the argument
        from .errors import ArgumentError, printable

        plt.close(fig)
        raise ArgumentError(f"path: {printable(repr(os.fspath(path)))}: unsupported plot format '{printable(ext)}' "
                            f"(use one of {', '.join('.' + f for f in sorted(formats))})")
    try:
        # rendered in memory, in the format said, then written: matplotlib appends '.png' to a name without an
        # extension, and a device written in place (/dev/full) has none — it wrote /dev/full.png beside it and
        # reported success; and Pillow's PNG writer seeks, which a named pipe cannot
        data = io.BytesIO()
        fig.savefig(data, dpi=dpi, format=ext[1:].lower())
        with atomic_path(path, suffix=ext) as tmp, open(tmp, "wb") as stream:
            stream.write(data.getbuffer())
    finally:
        plt.close(fig)
