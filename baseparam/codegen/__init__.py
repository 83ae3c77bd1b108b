"""Export: generated C99 and numpy code of the base regressor, Slotine–Li regressor and inverse dynamics."""
from ..errors import ExportError
from ._export import ExportResult, export

__all__ = ["ExportError", "ExportResult", "export"]
