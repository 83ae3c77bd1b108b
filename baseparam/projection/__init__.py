"""The projection method: the coordinate matrix Z's row space, its echelon form, and the base parameters.

``base_set``    :func:`find_base_parameters` → :class:`BaseParameters` (Z's row space by the recursion
                over spans, ``_row_space``; never Z itself)
``storage``     HDF5 files of the whole Z (:func:`find_and_store`, :func:`read_h5`)
``report``      the base set as text
``symbolic``    the regroupings as formulas in named DH lengths (``symbolic=`` below)

Inside, the engine in the order a run goes: ``_budget`` (the memory it will need, told before it starts),
``_floating`` (a floating base as six virtual joints), ``_joint_basis`` (a joint's transform over its basis: the
coefficient matrices Ã, B̃), ``_working_units`` (the numbers it works with: exact integers, floats, or floats with
GF(p) in lockstep, ``_modular``), ``_projections`` (the forward-recursive projection of the influence
coefficients), ``_row_space`` (Z's row space and Gram matrix by the recursion over spans), ``_reduction`` (the
echelon reduction: pivots, rank, Y), ``_coordinates`` (Z's rows, and the whole Z block by block for ``storage``),
``_sparse`` (the minimal CSR matrix its blocks are).
"""
from .._warnings import deprecated_call
from . import base_set
from .base_set import BaseParameters
from .storage import find_and_store, read_h5


# The deprecated ``h5=`` sits here, above both modules, so that the base set (pure) never imports
# the HDF5 storage that is built on it.
def find_base_parameters(robot, parameters="pseudo", *, symbolic=None, h5=None, **options):
    """Base parameters of a robot by the projection method.

    The entry point of :mod:`baseparam.projection`: it calls
    :func:`baseparam.projection.base_set.find_base_parameters`, or the symbolic or HDF5 route that
    ``symbolic`` or ``h5`` asks for. A floating base (``robot.base == 'floating'``) enters as a 6-DOF joint; its
    base parameters come first and ``seen_by_base_equations`` says which ones the base's six equations determine.

    Parameters
    ----------
    robot : Robot
    parameters : {'pseudo', 'khalil'}
    symbolic : str or sequence of str, optional
        ``"a2,d4"`` (or a sequence of names, or ``"all"``: every non-zero constant DH length): return a
        :class:`baseparam.projection.symbolic.SymbolicBaseParameters` instead, the regroupings as
        polynomials in those lengths, valid for generic values, with the special values listed
        (:func:`baseparam.projection.symbolic.find_symbolic_base_parameters`). Not with ``h5``.
    h5 : str or path-like, optional
        Deprecated: use :func:`baseparam.projection.storage.find_and_store`, to which it delegates (it
        also stores Z, its labels, the pivots and Y in that HDF5 file, written atomically).
    **options
        Passed on, as :func:`baseparam.projection.base_set.find_base_parameters` takes them: ``progress``
        (called as ``progress(done, total)`` as the work goes), ``force_float`` (the float path even where exact
        arithmetic is possible, for cross-checks), ``max_memory`` (bytes or a size such as ``"4G"``; default 80 %
        of what the machine has available: a robot that would need more is refused before the work starts, a
        ResourceLimitError). With ``h5`` also ``max_disk``; with ``symbolic`` instead ``seed``, ``max_degree``,
        ``max_memory``.

    Returns
    -------
    BaseParameters or SymbolicBaseParameters
    """
    if symbolic is not None:
        if h5 is not None:
            from ..errors import ArgumentError
            raise ArgumentError("symbolic: cannot be combined with h5= "
                                "(write the result with baseparam.projection.symbolic.store_symbolic)")
        from .symbolic import find_symbolic_base_parameters
        return find_symbolic_base_parameters(robot, symbolic, parameters, **options)
    if h5 is None:
        return base_set.find_base_parameters(robot, parameters, **options)
    deprecated_call("find_base_parameters(h5=...)",
                    "bp.find_and_store(robot, path, parameters)")
    return find_and_store(robot, h5, parameters, **options)


__all__ = ["BaseParameters", "find_and_store", "find_base_parameters", "read_h5"]
