"""Export: generated C99 and numpy code of the base regressor, Slotine–Li regressor and inverse dynamics;
the equations of motion in closed form (:func:`equations`) and the operations of printed ones
(:func:`operation_count`)."""
from ..errors import ExportError
from ._export import ExportResult, export
from .equations import Equations, equations, operation_count

__all__ = ["Equations", "ExportError", "ExportResult", "equations", "export", "operation_count"]
