"""The projection method: the coordinate matrix Z's row space, its echelon form, and the base parameters.

``base_set``    :func:`find_base_parameters` → :class:`BaseParameters` (Z's row space by the recursion
                over spans, ``_row_space``; never Z itself)
``storage``     HDF5 files of the whole Z (:func:`find_and_store`, :func:`read_h5`)
``report``      the base set as text
"""
import functools

from .._warnings import warn
from . import base_set
from .base_set import BaseParameters
from .storage import find_and_store, read_h5


# The deprecated ``h5=`` sits here, above both modules, so that the base set (pure) never imports
# the HDF5 storage that is built on it.
@functools.wraps(base_set.find_base_parameters)
def find_base_parameters(robot, parameters="pseudo", *, h5=None, **options):
    if h5 is None:
        return base_set.find_base_parameters(robot, parameters, **options)
    warn("find_base_parameters(h5=...) is deprecated: use "
         "baseparam.projection.storage.find_and_store(robot, path, parameters)",
         DeprecationWarning)
    return find_and_store(robot, h5, parameters, **options)


find_base_parameters.__doc__ += """
    ``h5=path`` (deprecated) delegates to :func:`baseparam.projection.storage.find_and_store`, which
    also stores Z, its labels, the pivots and Y in that HDF5 file, written atomically.
"""

__all__ = ["BaseParameters", "find_and_store", "find_base_parameters", "read_h5"]
