"""The robot model: joints, links and their parameters, read from a description.

``robot``        :class:`Robot`, :class:`Joint`, :class:`Inertia`
``loading``      :func:`load_robot`, :func:`parse_robot` (YAML descriptions)
``parameters``   :class:`ColumnLayout` (standard parameter names and order),
                 :func:`standard_parameters` (from a description's true inertias)
``joint_model``  the one joint model A(q) = C · M(q + offset) · C′ every stage reads
"""
from .loading import load_robot, parse_robot
from .parameters import ColumnLayout, standard_parameters
from .robot import Inertia, Joint, Robot

__all__ = ["ColumnLayout", "Inertia", "Joint", "Robot", "load_robot", "parse_robot", "standard_parameters"]
