"""Writing a robot with given bodies and drives as MuJoCo MJCF.

One ``<body>`` per moving joint, nested as the joints are, its frame the description's link frame:
placed in its parent's at q = 0 by ``C · M(offset) · C′`` (:mod:`.joint_model`), its ``hinge`` or
``slide`` joint through the joint frame (``C′⁻¹`` in the link frame), its ``<inertial>`` the body given
(principal axes and moments; ``inertiafromgeom="false"``: geometry never changes the masses).
Drives: ``armature`` (rotor inertia, IA·q̈), ``damping`` (viscous, FV·q̇) and ``frictionloss`` (Coulomb, a dry-friction
constraint in MuJoCo); a friction offset and a Stribeck term have no MJCF counterpart. Gravity is the
robot's, in the base frame (``worldbody``).

A robot read from a URDF keeps its geometry: the ``<visual>`` (group 1, no contacts) and ``<collision>``
(group 3) elements of the links making each body, boxes, cylinders, spheres and meshes. A mesh is
referenced by its absolute path when it is found (relative to the URDF's folder, ``package://NAME/…``
in a folder NAME above it) and is a format MuJoCo reads (binary STL, OBJ, MSH; its scale as written, a negative
one mirroring it); otherwise a comment says it
was left out. We write the tree ourselves rather than through MuJoCo's URDF compiler: that one needs
every mesh readable (``.dae`` visuals are common) and fuses or drops links by its own rules.
"""
from __future__ import annotations

import math
import os
from xml.sax.saxutils import quoteattr

import numpy as np

from ..errors import ArgumentError
from .dh_equivalent import joint_transform
from .joint_model import joint_models, product, si_readers
from .robot import joint_names, require_robot
from .urdf import _origin, _origin_matrix, _Problems
from .urdf_update import _number, _number_list, comment_text, link_parts, unique_name

MESH_FORMATS = (".stl", ".obj", ".msh")
MUJOCO_MINVAL = 1e-15     # MuJoCo's mjMINVAL: a moving body's mass and each principal moment must exceed it


def _quat(R) -> np.ndarray:
    """Unit quaternion (w, x, y, z) of a rotation matrix (Shepperd: divided by the largest component, so
    that a component that is 0 stays 0 rather than √(round-off))."""
    t = np.trace(R)
    k = int(np.argmax([t, R[0, 0], R[1, 1], R[2, 2]]))
    if k == 0:
        r = math.sqrt(1.0 + t)
        q = [r / 2, (R[2, 1] - R[1, 2]) / (2 * r), (R[0, 2] - R[2, 0]) / (2 * r), (R[1, 0] - R[0, 1]) / (2 * r)]
    else:
        i, j, l = k - 1, k % 3, (k + 1) % 3
        r = math.sqrt(max(1.0 + R[i, i] - R[j, j] - R[l, l], 0.0))
        q = [0.0] * 4
        q[0] = (R[l, j] - R[j, l]) / (2 * r)
        q[1 + i], q[1 + j], q[1 + l] = r / 2, (R[j, i] + R[i, j]) / (2 * r), (R[l, i] + R[i, l]) / (2 * r)
    q = np.array(q)
    return q / np.linalg.norm(q)


def _pose(T) -> str:
    return f'pos="{_number_list(T[:3, 3])}" quat="{_number_list(_quat(T[:3, :3]))}"'


# -- URDF geometry ---------------------------------------------------------------------------------------------
def _mesh_path(filename, folder):
    """The mesh file a URDF names, or None when it cannot be found."""
    filename = filename.removeprefix("file://")
    if filename.startswith("package://"):
        package, _, rest = filename[len("package://"):].partition("/")
        here = os.path.abspath(folder)
        while True:
            for candidate in (os.path.join(here, rest) if os.path.basename(here) == package else None,
                              os.path.join(here, package, rest)):
                if candidate and os.path.isfile(candidate):
                    return candidate
            parent = os.path.dirname(here)
            if parent == here:
                return None
            here = parent
    path = filename if os.path.isabs(filename) else os.path.join(folder, filename)
    return os.path.abspath(path) if os.path.isfile(path) else None


def _geoms(parts, folder, meshes, indent):
    """MJCF geoms of the links' visual and collision elements (placed by their link's T), and comments."""
    problems = _Problems("geometry")
    lines = []
    for link, T, _, element in parts:
        for kind, group, contact in (("visual", 1, ' contype="0" conaffinity="0"'), ("collision", 3, "")):
            for item in element.findall(kind):
                geometry = item.find("geometry")
                shape = None if geometry is None or not len(geometry) else geometry[0]
                if shape is None:
                    continue
                placed = T @ _origin_matrix(_origin(item, link, problems, link))
                size, extra = _shape(shape, folder, meshes)
                if size is None:
                    lines.append(f"{indent}<!-- " + comment_text(f"link {link!r} {kind}: {extra}") + " -->")
                    continue
                lines.append(f'{indent}<geom {size}{extra} {_pose(placed)} group="{group}"{contact}/>')
    return lines


def _shape(shape, folder, meshes):
    """(attributes, extra) of one URDF geometry, or (None, why it is left out)."""
    def floats(text, count):
        try:
            values = [float(v) for v in (text or "").split()]
        except ValueError:
            return None
        return values if len(values) == count and all(math.isfinite(v) and v > 0 for v in values) else None

    if shape.tag == "box" and (size := floats(shape.get("size"), 3)):
        return f'type="box" size="{_number_list(np.array(size) / 2)}"', ""
    if shape.tag == "cylinder" and (r := floats(shape.get("radius"), 1)) and (h := floats(shape.get("length"), 1)):
        return f'type="cylinder" size="{_number(r[0])} {_number(h[0] / 2)}"', ""
    if shape.tag == "sphere" and (r := floats(shape.get("radius"), 1)):
        return f'type="sphere" size="{_number(r[0])}"', ""
    if shape.tag == "mesh":
        filename = shape.get("filename") or ""
        path = _mesh_path(filename, folder)
        if path is None:
            return None, f"mesh {filename} not found: left out"
        if not path.lower().endswith(MESH_FORMATS):
            return None, f"mesh {filename}: MuJoCo reads STL, OBJ and MSH only: left out"
        if path.lower().endswith(".stl") and not _binary_stl(path):
            return None, f"mesh {filename}: not a binary STL, the only STL MuJoCo reads: left out"
        scale = _mesh_scale(shape.get("scale"))
        if scale is None:
            return None, f"mesh {filename}: scale {shape.get('scale')!r} is not 3 non-zero numbers: left out"
        name = meshes.setdefault((path, tuple(scale)), f"mesh{len(meshes) + 1}")     # each file and scale once
        return 'type="mesh"', f' mesh="{name}"'
    return None, f"<{shape.tag}> geometry not written"


def _mesh_scale(text):
    """A URDF mesh's scale (3,) as MuJoCo takes it, or None: absent is 1 1 1; a negative entry mirrors the mesh (a left
    arm's links from the right arm's files), which MuJoCo's own scale does too, so it is kept — taken as 1 1 1, the
    mesh would be written unmirrored, a file meaning another shape; 0 or a count other than 3 has no shape."""
    if text is None:
        return [1.0, 1.0, 1.0]
    try:
        values = [float(v) for v in text.split()]
    except ValueError:
        return None
    return values if len(values) == 3 and all(math.isfinite(v) and v != 0 for v in values) else None


def _binary_stl(path) -> bool:
    """Whether ``path`` is a binary STL (80-byte header, a triangle count, 50 bytes a triangle): MuJoCo refuses an
    ASCII one, and with it the whole file that references it."""
    try:
        with open(path, "rb") as f:
            head = f.read(84)
            size = os.fstat(f.fileno()).st_size
    except OSError:
        return False
    return len(head) == 84 and size == 84 + 50 * int.from_bytes(head[80:84], "little")


def _loadable_moments(robot_name, link, mass, moments):
    """The principal moments (3,), ascending, as MuJoCo's compiler takes them, or refuse the body in our words.

    Every body written carries a joint, so MuJoCo requires its mass and each principal moment above
    ``mjMINVAL`` (a URDF link without ``<inertial>`` has none), and A + B ≥ C exactly. A thin disc or rod has
    A + B = C, which the rotation to principal axes misses by round-off (4 in 10 rotated discs): the largest
    moment is lowered to A + B when it is over by round-off only, where MuJoCo would refuse the file;
    further over, no rigid body has those moments and we refuse."""
    mass = float(mass)
    written = [float(_number(m)) for m in moments]
    if not mass > MUJOCO_MINVAL or not written[0] > MUJOCO_MINVAL:
        raise ArgumentError(f"{robot_name}: link {link!r} has mass {_number(mass)} kg and principal moments "
                            f"{_number_list(written)} kg·m²: MuJoCo refuses a moving body whose mass or moments "
                            f"are not above {MUJOCO_MINVAL:g} (a URDF link without <inertial>?); give the link "
                            "a mass and inertia")
    over = written[2] - (written[0] + written[1])
    if over > 64 * np.finfo(float).eps * written[2]:
        raise ArgumentError(f"{robot_name}: link {link!r} has principal moments {_number_list(written)} kg·m², "
                            "which break A + B >= C (no rigid body has them); MuJoCo refuses such a body")
    if over > 0:
        written[2] = written[0] + written[1]
    return np.array(written)


def _body_names(robot, geometry) -> list:
    """Per joint, its body's name: the link it moves (``link{k}`` for a DH table); a URDF link named ``world``, MuJoCo's
    name of the worldbody, steps aside (``world_2``, …), as MuJoCo refuses a second body of that name."""
    if geometry is None:
        return [f"link{k + 1}" for k in range(robot.n_dof)]
    links = [geometry[1][k][1][0][0] for k in range(robot.n_dof)]
    world = unique_name("world", set(links))
    return [world if link == "world" else link for link in links]


# -- the file ---------------------------------------------------------------------------------------------------
def robot_to_mjcf(robot, bodies, *, friction=None, armature=None, urdf_folder=None, note=None) -> str:
    """The MJCF text of ``robot`` carrying ``bodies`` and drives (module notes).

    Parameters
    ----------
    robot : Robot
        Fixed base.
    bodies : sequence of (mass, com, inertia)
        Per link, in the link frame: kg, (3,) m, (3, 3) kg·m² about the centre of mass.
    friction : sequence of (float, float), optional
        Per joint, viscous (``damping``) and Coulomb (``frictionloss``) friction, SI (0: none).
    armature : sequence of float, optional
        Per joint, the rotor inertia (kg·m² or kg).
    urdf_folder : str, optional
        Where a URDF robot's relative mesh paths start (default: the current folder).
    note : str, optional
        A comment at the top.

    Returns
    -------
    str
    """
    require_robot(robot)        # a public name: anything else would be an AttributeError
    if robot.is_floating:
        raise ArgumentError(f"{robot.name}: a floating base is not written as MJCF yet (a free joint with the "
                            "base body); use to_yaml")

    models = joint_models(robot)
    geometry = link_parts(robot) if robot.from_urdf_text else None
    meshes = {}
    folder = urdf_folder or os.getcwd()
    children = {}
    for k, joint in enumerate(robot.joints):
        children.setdefault(joint.parent or 0, []).append(k)
    body_lines = _geoms(geometry[0], folder, meshes, "    ") if geometry is not None else []     # the base's links
    names = joint_names(robot.joints)
    bodies_named = _body_names(robot, geometry)

    def write(k, depth):
        joint, model = robot.joints[k], models[k]
        pad = "  " * (depth + 2)
        link = geometry[1][k][1][0][0] if geometry is not None else f"link{k + 1}"
        placement = joint_transform(robot, model, 0.0)
        J = np.linalg.inv(product(model.after, *si_readers(robot)))       # C′⁻¹: the joint frame in the link frame
        attributes = [f"name={quoteattr(names[k])}", f'type="{"hinge" if joint.is_revolute else "slide"}"',
                      f'pos="{_number_list(J[:3, 3])}"', f'axis="{_number_list(J[:3, 2])}"']
        limits = joint.limits
        if robot.convention == "urdf" and limits is not None and None not in (limits.lower, limits.upper):
            attributes.append(f'range="{_number(limits.lower)} {_number(limits.upper)}"')
        if friction is not None:
            damping, coulomb = friction[k]
            attributes += [f'damping="{_number(damping)}"', f'frictionloss="{_number(coulomb)}"']
        if armature is not None:
            attributes.append(f'armature="{_number(armature[k])}"')
        mass, com, inertia = bodies[k]
        # principal axes here (numpy's eigh, to round-off), not MuJoCo's iterative fullinertia (~1e-8)
        moments, axes = np.linalg.eigh(0.5 * (np.asarray(inertia, dtype=float) + np.asarray(inertia, dtype=float).T))
        if np.linalg.det(axes) < 0:
            axes[:, 2] = -axes[:, 2]
        moments = _loadable_moments(robot.name, link, mass, moments)
        body_lines.append(f"{pad}<body name={quoteattr(bodies_named[k])} {_pose(placement)}>")
        body_lines.append(f"{pad}  <joint {' '.join(attributes)}/>")
        body_lines.append(f'{pad}  <inertial pos="{_number_list(com)}" quat="{_number_list(_quat(axes))}" '
                          f'mass="{_number(mass)}" diaginertia="{_number_list(moments)}"/>')
        if geometry is not None:
            body_lines.extend(_geoms(geometry[1][k][1], folder, meshes, pad + "  "))
        for child in children.get(k + 1, []):
            write(child, depth + 1)
        body_lines.append(f"{pad}</body>")

    for k in children.get(0, []):
        write(k, 0)
    lines = [f"<mujoco model={quoteattr(robot.name)}>"]
    if note:
        lines.append("  <!-- " + comment_text(note) + " -->")
    lines += ['  <compiler angle="radian" inertiafromgeom="false" autolimits="true"/>',
              f'  <option gravity="{_number_list(robot.gravity_si)}"/>']
    if meshes:
        lines += ["  <asset>", *(f'    <mesh name="{mesh}" file={quoteattr(path)} scale="{_number_list(scale)}"/>'
                                 for (path, scale), mesh in meshes.items()), "  </asset>"]
    lines += ["  <worldbody>", *body_lines, "  </worldbody>", "</mujoco>"]
    return "\n".join(lines) + "\n"


__all__ = ["robot_to_mjcf"]
