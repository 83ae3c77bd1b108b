"""The projection method: the coordinate matrix Z's row space, its echelon form, and the base parameters.

``base_set``    :func:`find_base_parameters` → :class:`BaseParameters` (Z's row space by the recursion
                over spans, ``_row_space``; never Z itself)
``storage``     HDF5 files of the whole Z (:func:`find_and_store`, :func:`read_h5`)
``report``      the base set as text
"""
from .base_set import BaseParameters, find_base_parameters
from .storage import find_and_store, read_h5

__all__ = ["BaseParameters", "find_and_store", "find_base_parameters", "read_h5"]
