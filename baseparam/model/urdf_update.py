"""The user's own URDF with new bodies: only ``<inertial>`` and ``<dynamics>`` rewritten.

A robot read from a URDF (:func:`~baseparam.model.urdf.parse_urdf`) keeps the file's text as its
``source``. Its body k is the child link of moving joint k together with every link fixed to it
(fixed joints, and moving joints left out by ``tip``, locked at q = 0), in the child link's own frame
(the URDF link frame: no transform is needed for it). :func:`updated_urdf` writes new bodies back by
*text surgery* on that source: the character spans of the ``<inertial>`` elements of the links
concerned, and of the ``<dynamics>`` elements of the moving joints, are replaced (inserted where
missing); every other byte (names, meshes, materials, limits, joint types, mimic and fixed joints,
comments, vendor tags, indentation, line ends) stays as written. A link with a second ``<inertial>``
(which URDF readers, urdfdom's and this package's, leave unread: they take the first) has it removed where its
first is rewritten or removed, so that no reader takes it for the link's body; a joint's second ``<dynamics>`` is
removed where its first is rewritten.

**Links merged into one body.** The data identify only the body as a whole. When the identified
body less the CAD inertials of the links fixed to the child link is itself a physical body (its
pseudo-inertia positive definite), the child link gets that remainder and the fixed links keep
their ``<inertial>`` as written (a tool or a hand stays what CAD says); otherwise the child link
gets the whole body and the fixed links' ``<inertial>`` elements are removed (a comment says where
their mass went). Either way the file's total is the fit.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
import xml.parsers.expat

import numpy as np

from .._checks import shown
from ..errors import ArgumentError
from .parameters import point_inertia
from .._validation import check_robot

# A start tag, attributes quoted either way (a '>' may sit inside a quoted value).
_START_TAG = re.compile(rb"""<[^\s/>]+(?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*\s*(/?)>""")
# Remainders with a pseudo-inertia eigenvalue below this fraction of the body's largest are not bodies.
PHYSICAL_RATIO = 1e-9


def pseudo_inertia(mass, com, inertia) -> np.ndarray:
    """J = [[Σ, m c], [m cᵀ, m]] of a body (Σ = ∫ r rᵀ dm about the frame origin), shape (4, 4)."""
    c = np.asarray(com, dtype=float)
    about_origin = np.asarray(inertia, dtype=float) + point_inertia(mass, c)
    return pseudo_of(about_origin, mass * c, mass)


def pseudo_of(inertia_origin, first_moment, mass) -> np.ndarray:
    """J = [[½ tr(I) 1 − I, h], [hᵀ, m]] of a body given by its inertia I about the frame origin (3, 3), first
    moment h = m c (3,) and mass m: shape (4, 4)."""
    J = np.zeros((4, 4))
    J[:3, :3] = 0.5 * np.trace(inertia_origin) * np.eye(3) - inertia_origin
    J[:3, 3] = J[3, :3] = first_moment
    J[3, 3] = mass
    return J


def body_of(J) -> tuple:
    """(mass, com (3,), inertia about the com (3, 3)) of a pseudo-inertia."""
    m = float(J[3, 3])
    com = J[:3, 3] / m if m > 0 else np.zeros(3)
    about_origin = np.trace(J[:3, :3]) * np.eye(3) - J[:3, :3]
    inertia = about_origin - point_inertia(m, com)
    return m, com, 0.5 * (inertia + inertia.T)


# -- the file's structure ------------------------------------------------------------------------------------
def link_parts(robot):
    """The URDF links each body of the robot is made of (module notes).

    Returns
    -------
    base : list of (str, ndarray (4, 4), tuple or None, Element)
        The links fixed to the base link: name, placement in the base frame, CAD inertial (mass, com,
        inertia about the com, in that link's frame) or None, and the ``<link>`` element.
    bodies : list of (str, list)
        Per moving joint: its name, and the same list for its body (placements in its child link's frame;
        the child link first).
    """
    check_robot(robot)         # a public name: a non-robot is refused, not an AttributeError inside
    if not robot.from_urdf_text:
        raise ArgumentError(f"{robot.name}: not read from a URDF file (no URDF text to update); "
                            "robot_to_urdf writes a new file")
    # the URDF reader here, not at the top: dynamics imports this module (_definite's pseudo_of) and reads no URDF
    from .urdf import _origin_matrix, _Problems, _read

    problems = _Problems(robot.name)
    root = ET.fromstring(robot.source)
    elements = {el.get("name"): el for el in root.findall("link")}
    links, joints = _read(root, problems, None)        # the origins as written (no note on round-off)
    below, above = {}, {j.child: j for j in joints}
    for joint in joints:
        below.setdefault(joint.parent, []).append(joint)
    joints = {j.name: j for j in joints}
    moving = {j.name for j in robot.joints}
    for joint in robot.joints:
        if joint.name not in joints:
            raise ArgumentError(f"{robot.name}: joint {shown(joint.name)} is not in its URDF text")

    def parts(first):
        out, stack = [], [(first, np.eye(4))]
        while stack:              # the links merged into this body, placed in the first link's frame
            link, T = stack.pop()
            out.append((link, T, links[link], elements[link]))
            stack.extend((j.child, T @ _origin_matrix(j.origin)) for j in reversed(below.get(link, []))
                         if j.name not in moving)
        return out

    first = robot.joints[0]
    base = joints[first.name].parent
    for _ in range(len(first.origins) - 1):      # the fixed joints merged on the way from the base link
        base = above[base].parent
    out = [(joint.name, parts(joints[joint.name].child)) for joint in robot.joints]
    base_parts = parts(base)
    problems.check()
    return base_parts, out


def locked_links(robot):
    """The links of the robot's URDF that lie beyond a joint the file lets move but the robot leaves out (off the
    path to ``tip``, or a mimic joint under ``mimic='lock'``, locked at q = 0): link name → the name of such a joint
    above it. :func:`link_parts` merges them into a body (their mass rides on it); as a frame they move
    on the real robot.

    Returns
    -------
    dict of str to str
    """
    check_robot(robot)
    if not robot.from_urdf_text:
        return {}
    from .urdf import _Problems, _read

    problems = _Problems(robot.name)
    _, joints = _read(ET.fromstring(robot.source), problems, None)
    problems.check()
    below = {}
    for joint in joints:
        below.setdefault(joint.parent, []).append(joint)
    moving = {j.name for j in robot.joints}
    locked, stack = {}, [(j.child, j.name) for j in joints if j.type != "fixed" and j.name not in moving]
    while stack:                 # each locked joint's subtree, up to the robot's moving joints
        link, joint = stack.pop()
        if link in locked:
            continue
        locked[link] = joint
        stack.extend((j.child, j.name if j.type != "fixed" else joint) for j in below.get(link, [])
                     if j.name not in moving)
    return locked


def _spans(data: bytes):
    """Byte spans in the file: per top-level link and joint (start, end of its start tag, end, self-closing)
    and of its direct ``<inertial>``/``<dynamics>`` children (start, end): ``child`` the first (the one URDF
    readers read, urdfdom's and this package's), ``others`` any later ones; keyed by (tag, name)."""
    parser = xml.parsers.expat.ParserCreate()
    found, path = {}, []

    def start(tag, attrs):
        at = parser.CurrentByteIndex
        match = _START_TAG.match(data, at)
        closed = bool(match.group(1))
        path.append((tag, attrs.get("name"), at, match.end(), closed))
        if len(path) == 2 and tag in ("link", "joint"):
            found[(tag, attrs.get("name"))] = {"start": at, "open_end": match.end(), "closed": closed, "child": None,
                                              "others": []}
        elif len(path) == 3 and tag in ("inertial", "dynamics") and path[1][0] in ("link", "joint"):
            entry = found[(path[1][0], path[1][1])]
            span = [at, match.end() if closed else None]
            if entry["child"] is None:
                entry["child"] = span
            else:
                entry["others"].append(span)

    def end(tag):
        at = parser.CurrentByteIndex
        _, name, begin, open_end, closed = path.pop()
        stop = open_end if closed else data.index(b">", at) + 1
        if len(path) == 1 and tag in ("link", "joint"):
            found[(tag, name)].update(end=stop, close_start=at)
        elif len(path) == 2 and tag in ("inertial", "dynamics"):
            entry = found[(path[1][0], path[1][1])]
            for span in [entry["child"], *entry["others"]]:
                if span is not None and span[0] == begin:
                    span[1] = stop

    parser.StartElementHandler, parser.EndElementHandler = start, end
    parser.Parse(data, True)
    return found


def _indent(data, at):
    """The white space before position `at` on its line, and the file's line end."""
    line_start = data.rfind(b"\n", 0, at) + 1
    lead = data[line_start:at]
    return (lead if not lead.strip() else b""), (b"\r\n" if b"\r\n" in data else b"\n")


# -- writing ---------------------------------------------------------------------------------------------------
def unique_name(name, taken) -> str:
    """``name``, or ``name_2``, ``name_3``, … the first not in ``taken`` (a name a written URDF adds beside its own)."""
    out, k = name, 1
    while out in taken:
        k += 1
        out = f"{name}_{k}"
    return out


def _number(x) -> str:
    return repr(float(x) + 0.0)


def _number_list(values) -> str:
    return " ".join(_number(v) for v in values)


def inertia_element(inertia, number=_number) -> str:
    """``<inertia ixx=".." …/>`` of a tensor (3, 3), each entry written by `number`."""
    from .urdf import INERTIA_ATTRIBUTES      # the reader's table (here: see link_parts)

    I = np.asarray(inertia, dtype=float)
    return "<inertia " + " ".join(f'{key}="{number(I[i, j])}"' for key, (i, j) in INERTIA_ATTRIBUTES) + "/>"


def comment_text(text) -> str:
    """``text`` as XML comments may hold it: no ``--`` (a space after each dash followed by one; ``str.replace`` of
    ``--`` left one in ``---``, a name so spelled made the written URDF or MJCF no XML)."""
    return re.sub(r"-(?=-)", "- ", text)


def _comment(text) -> str:
    return "<!-- " + comment_text(text).replace("\n", " ") + " -->"


def _inertial_text(body, comment, indent, newline, step) -> bytes:
    mass, com, inertia = body
    inner = indent + step
    lines = ["<inertial>"]
    if comment:
        lines.append(inner + _comment(comment))
    lines += [inner + f'<origin xyz="{_number_list(com)}" rpy="0 0 0"/>', inner + f'<mass value="{_number(mass)}"/>',
              inner + inertia_element(inertia), indent + "</inertial>"]
    return newline.join(lines).encode()


def _with_attributes(tag: bytes, values: dict) -> bytes:
    """A start tag with some attributes' values replaced (or added), the rest of its bytes as written."""
    for key, value in values.items():
        pattern = re.compile(rb"(\s" + key.encode() + rb"""\s*=\s*)(["'])(.*?)\2""", re.S)
        if pattern.search(tag):
            tag = pattern.sub(lambda m, v=value: m.group(1) + m.group(2) + v.encode() + m.group(2), tag, count=1)
        else:
            cut = len(tag) - (2 if tag.endswith(b"/>") else 1)
            tag = tag[:cut].rstrip() + f' {key}="{value}"'.encode() + tag[cut:]
    return tag


def updated_urdf(robot, bodies, *, friction=None, comments=None) -> str:
    """The robot's URDF text with new bodies (and friction), nothing else changed (module notes).

    Parameters
    ----------
    robot : Robot
        Read from a URDF (``robot.source`` its text, ``convention='urdf'``).
    bodies : sequence of (mass, com, inertia)
        Per moving joint, its body in its child link's frame: kg, (3,) m, (3, 3) kg·m² about the
        centre of mass (the links fixed to it included).
    friction : sequence of (float or None, float or None), optional
        Per moving joint, the viscous (``damping``, N·m·s/rad or N·s/m) and Coulomb (``friction``,
        N·m or N) values for its ``<dynamics>``; None leaves a value (or the element) as written.
    comments : sequence of str or None, optional
        Per moving joint, a comment written inside the child link's ``<inertial>``.

    Returns
    -------
    str
    """
    parts_of = link_parts(robot)[1]
    data = robot.source.encode("utf-8")
    spans = _spans(data)
    edits = []                                     # (start, end, bytes)
    for k, (joint_name, parts) in enumerate(parts_of):
        J = pseudo_inertia(*bodies[k])
        child = parts[0][0]
        fixed = [(link, T, inertial) for link, T, inertial, _ in parts[1:] if inertial is not None]
        # each fixed link's pseudo-inertia J_l moved from its frame (placed at T) into the body's: T·J_l·Tᵀ
        remainder = J - sum((T @ pseudo_inertia(*inertial) @ T.T for _, T, inertial in fixed), np.zeros((4, 4)))
        eig = np.linalg.eigvalsh(remainder)
        keep_fixed = bool(fixed) and eig[0] > PHYSICAL_RATIO * max(eig[-1], 0.0)
        note = comments[k] if comments is not None and comments[k] else ""
        if fixed:
            names = ", ".join(f"'{link}'" for link, _, _ in fixed)
            note += (f"{'; ' if note else ''}the body of joint '{joint_name}' is this link with {names}: "
                     + ("this is the fit less their inertials (kept as written)" if keep_fixed else
                        "the whole fit is here (the fit less their inertials is not a body; theirs removed)"))
        written = body_of(remainder) if keep_fixed else (body_of(J) if fixed else bodies[k])
        edits.append(_inertial_edit(data, spans[("link", child)], written, note))
        # a second <inertial> of a link, which readers leave unread (they take the first): removed, or once the
        # first is rewritten or removed, a reader could take it for the link's body
        unread = _comment("baseparam: a second inertial of this link, which URDF readers leave unread (they read "
                          "the first), removed").encode()
        edits += [(start, end, unread) for start, end in spans[("link", child)]["others"]]
        if fixed and not keep_fixed:
            for link, _, _ in fixed:
                removed = _comment(f"baseparam: this link's mass is in link '{child}', identified as one body with "
                                   "it").encode()
                span = spans[("link", link)]
                edits += [(start, end, removed) for start, end in [span["child"], *span["others"]]]
        if friction is not None and friction[k] is not None and any(v is not None for v in friction[k]):
            joint = spans[("joint", joint_name)]
            edits.append(_dynamics_edit(data, joint, friction[k]))
            # likewise a second <dynamics>: once the first holds the fit, a reader taking the other read stale values
            unread = _comment("baseparam: a second dynamics of this joint, which URDF readers leave unread (they "
                              "read the first), removed").encode()
            edits += [(start, end, unread) for start, end in joint["others"]]
    out = data
    for start, end, text in sorted(edits, key=lambda e: e[0], reverse=True):
        out = out[:start] + text + out[end:]
    return out.decode("utf-8")


def _step(data, span):
    """The file's indentation step: a link's children's indent less the link's (two spaces if unknown)."""
    indent = _indent(data, span["start"])[0]
    line = data.find(b"\n", span["open_end"]) + 1
    lead = re.match(rb"[ \t]*", data[line:]).group(0)
    return (lead[len(indent):] if lead.startswith(indent) and len(lead) > len(indent) else b"  ").decode()


def _inertial_edit(data, span, body, note):
    indent, newline = _indent(data, span["start"])
    step = _step(data, span)
    if span["child"] is not None:
        start, end = span["child"]
        return start, end, _inertial_text(body, note, _indent(data, start)[0].decode(), newline.decode(), step)
    inner = (indent + step.encode()).decode()
    text = _inertial_text(body, note, inner, newline.decode(), step)
    if span["closed"]:          # <link name="x"/>: opened to hold the body
        tag = data[span["start"]:span["open_end"]]
        head = tag[:-2].rstrip() + b">"
        return span["start"], span["open_end"], head + newline + inner.encode() + text + newline + indent + b"</link>"
    return span["open_end"], span["open_end"], newline + inner.encode() + text


def _dynamics_edit(data, span, values):
    damping, coulomb = values
    new = {key: _number(v) for key, v in (("damping", damping), ("friction", coulomb)) if v is not None}
    if span["child"] is not None:       # its other attributes (a simulator's own) stay as written
        start = span["child"][0]
        tag_end = _START_TAG.match(data, start).end()
        return start, tag_end, _with_attributes(data[start:tag_end], new)
    at = span["close_start"]
    indent, newline = _indent(data, at)
    element = ("<dynamics " + " ".join(f'{key}="{value}"' for key, value in new.items()) + "/>").encode()
    if data[data.rfind(b"\n", 0, at) + 1:at].strip():        # </joint> after other text on its line
        return at, at, element
    return at, at, _step(data, span).encode() + element + newline + indent


__all__ = ["body_of", "link_parts", "pseudo_inertia", "pseudo_of", "updated_urdf"]
