"""The robot model: joints, links and their parameters, read from a description.

``robot``        :class:`Robot`, :class:`Joint`, :class:`Inertia`, :class:`Origin`, :class:`JointLimits`
``loading``      :func:`load_robot` (a YAML or URDF file), :func:`parse_robot` (the text of one)
``urdf``         :func:`~baseparam.model.urdf.parse_urdf` (URDF: fixed joints merged, trees, root/tip)
``parameters``   :class:`ColumnLayout` (standard parameter names and order),
                 :func:`standard_parameters` (from a description's true inertias)
``joint_model``  the one joint model A(q) = C · M(q + offset) · C′ every stage reads
``value``        :class:`Model` (a robot, its parameterization and a parameter vector: what the dynamics
                 take), :class:`BaseModel` (the same in base coordinates)
``friction``     the friction models (each coefficient one regressor column)
``checks``       checks and round-off snapping shared by the YAML loader and robots built in code
``_yaml_text``   text to one YAML document, strictly (every YAML file read: descriptions, limits, contacts);
                 ``_fields`` its single fields; ``_xml_text`` an XML file's encoding (URDF); ``_angles`` angles
                 written in radians (YAML and URDF)
``summary``      ``baseparam describe``'s account of a robot; ``dh_equivalent`` the standard DH table of
                 any serial chain, with the transforms to the description's frames
``attach``       a payload as a body on the last link
``urdf_writer``, ``urdf_update``, ``mjcf_writer``   a robot written as URDF, the user's own URDF with new
                 bodies, MuJoCo MJCF
``_kernels``     a robot's compiled code, kept with the robot object (thread-safe, no module globals)
"""
from .loading import load_robot, parse_robot
from .parameters import ColumnLayout, standard_parameters
from .robot import Inertia, Joint, JointLimits, Origin, Robot
from .value import BaseModel, Model

__all__ = ["BaseModel", "ColumnLayout", "Inertia", "Joint", "JointLimits", "Model", "Origin", "Robot", "load_robot",
           "parse_robot", "standard_parameters"]
