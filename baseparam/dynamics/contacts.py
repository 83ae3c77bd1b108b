"""Contacts: a frame fixed on a link, its Jacobian, and the generalized force of a wrench applied there.

A contact frame c sits on link k (k = 0: the base, frame 0; k ≥ 1: the link joint k moves) at a fixed
placement (rotation R_kc, position p_kc in link k's frame). Its Jacobian J_c(q) maps q̇ to the frame's
twist [v; ω] in its own axes (v the velocity of its origin): pinocchio's ``getFrameJacobian(...,
LOCAL)``. A wrench w = [f; n] applied to the robot at the contact (in the contact frame's axes,
moment about its origin) does the power w·(J_c q̇), so its generalized force is J_cᵀ w (n_v entries:
for a floating base the first six are [f; n] moved to frame 0, the joints' the torques it makes).

The Jacobian is built from the tree's frames (:class:`~baseparam.dynamics.tree.Tree`): the column
block of each body on the path from the link to the root is the body's motion subspace carried to
the contact frame.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from .._numbers import beyond_absurd, first_beyond_absurd, is_whole, real_array
from .._validation import ABSURD, check_instance, check_robot, check_robot_states, shown
from ..errors import ArgumentError, printable
from ..model.checks import MAX_JOINTS
from ..model.parameters import ColumnLayout
from .floating import public_layout
from .samples import LinkParameters
from .tree import Tree, motion_transform

__all__ = ["Contact", "contact_jacobian", "contact_forces"]


def contact_name(contact, k):
    """The name of contact ``k`` (from 1) of a list: a :class:`Contact`'s ``name`` (or the name given as a str),
    else ``contact<k>`` — the one rule of the logs' columns, the bags' wrench topics and the writers."""
    name = contact if isinstance(contact, str) else getattr(contact, "name", "")
    return name or f"contact{k}"


@dataclasses.dataclass(frozen=True)
class Contact:
    """A frame fixed on a link where a wrench is measured (a foot on a force plate, a wrist F/T sensor).

    Attributes
    ----------
    link : int or str
        0 for the base (frame 0), k ≥ 1 for the link joint k moves (its frame: DH frame k, or the
        URDF child link's frame); or the joint's name.
    position : tuple of 3 floats
        The contact frame's origin in the link's frame (m).
    rotation : tuple of 3 tuples of 3 floats
        Its axes in the link's frame (the columns; the identity by default).
    name : str
    """

    link: object
    position: tuple = (0.0, 0.0, 0.0)
    rotation: tuple = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
    name: str = ""

    def __post_init__(self):
        check_instance(self.name, "contact name", str, "a str")
        label = f"contact {printable(self.name) or shown(self.link)}"
        # a link number or a joint name (the robot, which bounds the number further, is checked by link_index):
        # NaN, a float, an object or a number beyond every robot's links (10**400) would make a contact that fails
        # only where it is used
        if not isinstance(self.link, str) and (not is_whole(self.link) or not 0 <= self.link <= MAX_JOINTS):
            raise ArgumentError(f"{label}: link: expected 0 (the base), a link number from 1 to {MAX_JOINTS} or a "
                                f"joint name, got {shown(self.link)}")
        p = real_array(f"{label}: position", self.position)
        R = real_array(f"{label}: rotation", self.rotation)
        if p.shape != (3,) or not np.isfinite(p).all() or not (np.abs(p) <= ABSURD).all():
            raise ArgumentError(f"{label}: position: expected 3 finite numbers (m), got "
                                + (f"{p.tolist()}" if p.shape == (3,) else f"shape {p.shape}"))
        if R.shape != (3, 3) or not np.isfinite(R).all() or not np.allclose(R.T @ R, np.eye(3), atol=1e-6) \
                or np.linalg.det(R) < 0:
            raise ArgumentError(f"{label}: rotation: expected a 3×3 rotation matrix, got "
                                + (f"{R.tolist()}" if R.shape == (3, 3) else f"shape {R.shape}"))
        object.__setattr__(self, "position", tuple(p.tolist()))
        object.__setattr__(self, "rotation", tuple(map(tuple, R.tolist())))

    def link_index(self, robot):
        """The link as an index 0..n_dof (0: the base) of ``robot`` (a Robot)."""
        robot = check_robot(robot)
        if isinstance(self.link, str):
            names = [j.name for j in robot.joints]
            if self.link not in names:
                known = ", ".join(printable(n) for n in names if n) or "unnamed"
                raise ArgumentError(f"contact {printable(self.name) or shown(self.link)}: link: no joint named "
                                    f"{shown(self.link)} (joints: {known})")
            return names.index(self.link) + 1
        check_link_number(self.link, robot.n_dof, self.name)
        return int(self.link)


def check_link_number(link, n_dof, name=""):
    """Refuse a link number (not a joint name) outside 0 (the base) … ``n_dof``, in the words of
    :meth:`Contact.link_index` (a contacts file checks it before building its :class:`Contact`, whose own bound is
    every robot's)."""
    if not is_whole(link) or not 0 <= link <= n_dof:
        raise ArgumentError(f"contact {printable(name) or shown(link)}: link: expected 0 (the base) to {n_dof} or a "
                            f"joint name, got {shown(link)}")


def check_contacts(contacts, robot):
    """``contacts`` as a tuple, each a :class:`Contact` on a link ``robot`` has; else one line naming ``contacts``."""
    contacts = tuple(check_instance(contacts, "contacts", (list, tuple), "a sequence of Contact"))
    for contact in contacts:
        check_instance(contact, "contacts", Contact, "a sequence of Contact").link_index(robot)
    return contacts


def _tree(robot, q):
    return Tree(robot, LinkParameters(robot, np.zeros(ColumnLayout(robot, "pseudo").n_standard)), q)


def tree_body(robot, contact):
    """The contact's body in the kinematic tree (a floating base's body is 0, its links follow)."""
    k = contact.link_index(robot)
    return k - 1 + (1 if robot.is_floating else 0) if k > 0 else 0


def _jacobian(robot, tree, contact):
    """J_c for a built tree: (S, 6, n_v), rows [v; ω] in the contact frame."""
    body = tree_body(robot, contact)
    if contact.link_index(robot) == 0 and not robot.is_floating:
        raise ArgumentError(f"contact {shown(contact.name or contact.link)}"
                            f": link 0 is the fixed base; it has no Jacobian")
    Rp, pp = np.asarray(contact.rotation), np.asarray(contact.position)
    Rc = tree.R[body] @ Rp
    pc = tree.P[body] + tree.R[body] @ pp
    J = np.zeros((tree.S, 6, robot.n_v))
    b = body
    while b >= 0:
        Rt = np.swapaxes(tree.R[b], 1, 2)
        X = motion_transform(Rt @ Rc, np.einsum("sij,sj->si", Rt, pc - tree.P[b]))   # frame b → contact frame
        J[:, :, tree.dofs[b]] = X @ tree.A[b]
        b = tree.parents[b]
    return public_layout(J, axis=1)                                         # [ω; v] → [v; ω]


def contact_jacobian(robot, q, contact):
    """The contact frame's Jacobian: its twist [v; ω] in its own axes is J_c(q) q̇.

    Parameters
    ----------
    robot : Robot
    q : array_like, shape (n_samples, n_q) or (n_q,)
    contact : Contact

    Returns
    -------
    ndarray, shape (n_samples, 6, n_v) (or (6, n_v))
    """
    robot = check_robot(robot)
    check_instance(contact, "contact", Contact, "a bp.Contact").link_index(robot)
    (q,), single = check_robot_states(robot, q=q)
    J = _jacobian(robot, _tree(robot, q), contact)
    return J[0] if single else J


def contact_forces(robot, q, contacts, wrenches):
    """Σ_c J_cᵀ w_c: the generalized force of wrenches applied to the robot at contact frames.

    Parameters
    ----------
    robot : Robot
    q : array_like, shape (n_samples, n_q)
    contacts : sequence of Contact
    wrenches : array_like, shape (n_samples, n_contacts, 6)
        Each the wrench [f, n] the environment exerts on the robot, in its contact frame's axes,
        moment about the contact frame's origin (a force plate measures the opposite).

    Returns
    -------
    ndarray, shape (n_samples, n_v)
        For a floating base the first six entries are the total wrench [f, n] on the robot moved to
        frame 0 (frame-0 axes, moment about its origin).
    """
    robot = check_robot(robot)
    contacts = check_contacts(contacts, robot)
    # a number first: else a ragged list would reach np.atleast_2d's bare ValueError
    (q,), _ = check_robot_states(robot, q=np.atleast_2d(real_array("q", q)))
    w = real_array("wrenches", wrenches)
    if w.shape != (q.shape[0], len(contacts), 6):
        raise ArgumentError(f"wrenches: expected shape ({q.shape[0]}, {len(contacts)}, 6) (samples, contacts, "
                            f"[f, n]), got {w.shape}")
    at = first_beyond_absurd(w)
    if at is not None:
        s, c, i = at
        raise ArgumentError(f"wrenches: {beyond_absurd(w[at], 'w')} {w[at]} at sample {s}, contact {c + 1}, "
                            f"component {i + 1}")
    tree = _tree(robot, q)
    out = np.zeros((q.shape[0], robot.n_v))
    for c, contact in enumerate(contacts):
        out += np.einsum("sri,sr->si", _jacobian(robot, tree, contact), w[:, c])
    return out
