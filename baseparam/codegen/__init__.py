"""Export: generated C99 and numpy code of the base regressor, Slotine–Li regressor and inverse dynamics."""
from ._export import export

__all__ = ["export"]
