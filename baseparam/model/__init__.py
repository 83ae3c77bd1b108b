"""The robot model: joints, links and their parameters, read from a description.

``robot``        :class:`Robot`, :class:`Joint`, :class:`Inertia`, :class:`Origin`, :class:`JointLimits`
``loading``      :func:`load_robot` (YAML or URDF), :func:`parse_robot` (YAML descriptions)
``urdf``         :func:`~baseparam.model.urdf.parse_urdf` (URDF: fixed joints merged, trees, root/tip)
``parameters``   :class:`ColumnLayout` (standard parameter names and order),
                 :func:`standard_parameters` (from a description's true inertias)
``joint_model``  the one joint model A(q) = C · M(q + offset) · C′ every stage reads
``value``        :class:`Model` (a robot, its parameterization and a parameter vector: what the dynamics
                 take), :class:`BaseModel` (the same in base coordinates)
"""
from .loading import load_robot, parse_robot
from .parameters import ColumnLayout, standard_parameters
from .robot import Inertia, Joint, JointLimits, Origin, Robot
from .value import BaseModel, Model

__all__ = ["BaseModel", "ColumnLayout", "Inertia", "Joint", "JointLimits", "Model", "Origin", "Robot", "load_robot",
           "parse_robot", "standard_parameters"]
