"""Export: generated C99 and numpy code of the base regressor, Slotine–Li regressor and inverse dynamics;
the equations of motion in closed form (:func:`equations`) and the operations of printed ones
(:func:`operation_count`).

``_export``      :func:`export` → :class:`ExportResult` (:class:`ExportError`: an invalid request): the files of
                 one export; ``_routines`` the exported functions as expression graphs and their operation
                 counts; ``_printer`` what the C (``_c_source``) and Python (``_python_source``) exports share —
                 the graphs themselves are printed by :mod:`baseparam.dynamics.printing`
``equations``    :func:`equations` → :class:`Equations`: closed forms without ``simplify`` (``_trig``), with
                 named DH lengths as symbols (``_symbolic_lengths``), printed by SymPy's printers sharing one
                 order of each sum's terms (``_shared_order``)
"""
from ..errors import ExportError
from ._export import ExportResult, export
from .equations import Equations, equations, operation_count

__all__ = ["Equations", "ExportError", "ExportResult", "equations", "export", "operation_count"]
