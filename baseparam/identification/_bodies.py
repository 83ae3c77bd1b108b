"""The identified bodies beside the description's (CAD) ones, and which are beyond plausible bounds.

A consistent fit gives physical bodies, but only their base-parameter combinations are identified:
without a prior, a link can come out at 100 times its real mass and still fit. Each identified body is
compared with three bounds, and flagged (text report, JSON ``bodies``, the written URDF's comment)
when it leaves one:

* **mass against CAD**: outside [CAD/``MASS_RATIO``, CAD·``MASS_RATIO``] (3: a CAD model of the right
  robot is rarely a factor 3 off; a wrong payload or a missing motor is less);
* **density**: the uniform box with the body's mass and principal moments (sides
  √(6 (I_j + I_k − I_i)/m)) has a density outside ``DENSITY`` = [100, 25 000] kg/m³ (foam-filled
  shells to tungsten: a hollow aluminium link is ~1 000) — a body squeezed to a plate or a rod by the
  constraints has an infinite one. CAD files often inflate small links' inertias for simulation
  (the UR5's wrists: 9 kg/m³, the KUKA LWR4+'s flange: 0.3): the bounds widen to a factor
  ``MASS_RATIO`` around the CAD body's own density;
* **size**: its centre of mass farther from its link frame than the robot's size (the sum of the
  distances between consecutive link frames at q = 0, the CAD centres of mass included), or its box's
  longest side more than twice that.
"""
from __future__ import annotations

import numpy as np

MASS_RATIO = 3.0
DENSITY = (100.0, 25_000.0)       # kg/m³


def box_sides(mass, principal) -> np.ndarray:
    """Sides (m) of the uniform box with this mass and principal moments (0 where the body is flat)."""
    I = np.asarray(principal, dtype=float)
    squares = np.array([I[1] + I[2] - I[0], I[0] + I[2] - I[1], I[0] + I[1] - I[2]]) * 6.0 / mass
    return np.sqrt(np.maximum(squares, 0.0))


def robot_size(robot) -> float:
    """The robot's size (m): distances between consecutive link frames at q = 0, and the CAD centres of mass."""
    from ..model.dh_equivalent import link_frames

    frames = link_frames(robot, np.zeros(robot.n_dof))
    size = 0.0
    for joint, T in zip(robot.joints, frames):
        parent = frames[joint.parent - 1] if joint.parent else np.eye(4)
        size += float(np.linalg.norm(T[:3, 3] - parent[:3, 3]))
        if joint.inertia is not None:
            size += float(np.linalg.norm(joint.inertia.com)) / robot.n_dof
    return size


def _density(mass, sides) -> float:
    volume = float(np.prod(sides))
    return mass / volume if volume > 0 else np.inf


def _summary(mass, com, inertia):
    principal = np.linalg.eigvalsh(np.asarray(inertia, dtype=float))
    return {"mass": float(mass), "com": [float(v) for v in com], "principal_moments": [float(v) for v in principal]}


def implausible(body, cad, size) -> list:
    """Why an identified body (dict: mass, com, principal_moments) is beyond plausible bounds (module notes)."""
    out = []
    m = body["mass"]
    if cad is not None and cad["mass"] > 0:
        ratio = m / cad["mass"]
        if not 1.0 / MASS_RATIO <= ratio <= MASS_RATIO:
            out.append(f"mass {m:.3g} kg is {ratio:.2g}× CAD ({cad['mass']:.3g} kg)")
    if m > 0:
        sides = box_sides(m, body["principal_moments"])
        density = _density(m, sides)
        low, high = DENSITY
        if cad is not None and cad["mass"] > 0:      # a CAD body's own (simulation-inflated) inertia widens them
            own = _density(cad["mass"], box_sides(cad["mass"], cad["principal_moments"]))
            low, high = min(low, own / MASS_RATIO), max(high, own * MASS_RATIO)
        if not low <= density <= high:
            shown = "infinite (a plate or a rod)" if not np.isfinite(density) else f"{density:.3g} kg/m³"
            out.append(f"density of its equivalent box {shown}, outside {low:.3g}–{high:.3g} kg/m³")
        if size > 0:
            distance = float(np.linalg.norm(body["com"]))
            if distance > size:
                out.append(f"centre of mass {distance:.3g} m from its link frame, beyond the robot's size "
                           f"({size:.3g} m)")
            elif sides.max() > 2 * size:
                out.append(f"equivalent box {sides.max():.3g} m long, beyond twice the robot's size ({size:.3g} m)")
    return out


def body_table(robot, physical) -> list:
    """Per link: the identified body, the CAD one and what is implausible.

    Parameters
    ----------
    robot : Robot
        The description (its true inertias are the CAD bodies).
    physical : list of dict
        :func:`._consistent.physical_links`.

    Returns
    -------
    list of dict
        ``link`` (1-based), ``joint`` (its name or None), ``identified`` and ``cad`` (None without one):
        each ``mass`` (kg), ``com`` (3, m, link frame), ``principal_moments`` (3, kg·m², about the
        centre of mass); ``implausible``: list of str (empty: within the bounds); ``min_eigenvalue``
        of the identified pseudo-inertia.
    """
    size = robot_size(robot)
    out = []
    for joint, link in zip(robot.joints, physical):
        body = _summary(link["mass"], link["com"], link["inertia_com"])
        cad = None if joint.inertia is None else _summary(joint.inertia.mass, joint.inertia.com,
                                                           joint.inertia.inertia)
        out.append({"link": link["link"], "joint": joint.name, "identified": body, "cad": cad,
                    "implausible": implausible(body, cad, size), "min_eigenvalue": link["min_eigenvalue"]})
    return out


def table_lines(rows) -> list:
    """The text table: identified against CAD per link, implausible ones marked with '!'."""
    lines = [f"  {'link':>4} {'':<10} {'mass kg':>9}  {'centre of mass [m]':<26} {'principal moments [kg m²]':<29} "
             f"{'min eig J':>9}"]
    for row in rows:
        for label, body in (("identified", row["identified"]), ("CAD", row["cad"])):
            if body is None:
                continue
            com = " ".join(f"{v:8.4f}" for v in body["com"])
            pm = " ".join(f"{v:9.3g}" for v in body["principal_moments"])
            mark = "!" if label == "identified" and row["implausible"] else " "
            number = f"{row['link']}{mark}" if label == "identified" else ""
            eig = f" {row['min_eigenvalue']:>9.2e}" if label == "identified" else ""
            lines.append(f"  {number:>4} {label:<10} {body['mass']:>9.4g}  {com:<26} {pm:<29}{eig}".rstrip())
    flagged = [row for row in rows if row["implausible"]]
    if flagged:
        lines.append(f"! beyond plausible bounds ({len(flagged)} of {len(rows)} links): "
                     + "; ".join(f"link {row['link']}: {', '.join(row['implausible'])}" for row in flagged[:6])
                     + ("; …" if len(flagged) > 6 else ""))
        lines.append("  the data identify only base parameters: pull towards the CAD bodies (prior='cad'), or bound "
                     "the masses (mass_bounds, total_mass)")
    return lines


__all__ = ["DENSITY", "MASS_RATIO", "body_table", "box_sides", "implausible", "robot_size", "table_lines"]
