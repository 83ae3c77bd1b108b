"""Export: generated C99 and numpy code of the base regressor, Slotine–Li regressor and inverse dynamics;
the equations of motion in closed form (:func:`equations`)."""
from ..errors import ExportError
from ._export import ExportResult, export
from .equations import Equations, equations

__all__ = ["Equations", "ExportError", "ExportResult", "equations", "export"]
