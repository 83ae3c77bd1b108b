"""Command line: ``baseparam find ROBOT.yaml [--parameters pseudo|khalil] [--json OUT] [--h5 OUT]``.

Library errors become one line on stderr and exit status 2 (bad input) or 1 (internal error).
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time

import click

from .base_set import find_base_parameters
from .errors import BaseParamError, ResourceLimitError
from .loading import load_robot
from .report import format_table


def write_text_atomically(path, text):
    """Write to a temporary file beside ``path``, then rename: readers never see half a file."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".baseparam-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class _Progress:
    """A tqdm bar on stderr that appears only once a run has lasted a second."""

    def __init__(self, desc):
        self.desc, self.start, self.bar = desc, time.monotonic(), None

    def __call__(self, done, total):
        if self.bar is None and time.monotonic() - self.start > 1.0:
            from tqdm import tqdm
            self.bar = tqdm(total=total, desc=self.desc, file=sys.stderr, leave=False)
            self.bar.update(done)
        elif self.bar is not None:
            self.bar.update(done - self.bar.n)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _fail(message, status):
    click.echo(f"baseparam: {message}", err=True)
    sys.exit(status)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="baseparam")
def main():
    """Base inertial parameters of manipulators by the projection method."""


@main.command()
@click.argument("robot_file", type=click.Path(dir_okay=False))
@click.option("--parameters", type=click.Choice(["pseudo", "khalil"]), default="pseudo", show_default=True,
              help="Elementary parameterization: pseudo-inertia second moments (paper) or Khalil's inertia tensor.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Write the result as JSON.")
@click.option("--h5", "h5_out", type=click.Path(dir_okay=False), help="Store Z, its labels, pivots and Y in HDF5.")
def find(robot_file, parameters, json_out, h5_out):
    """Find the base parameters of ROBOT_FILE (a YAML description) and print their regroupings."""
    progress = _Progress("projecting")
    try:
        robot = load_robot(robot_file)
        base = find_base_parameters(robot, parameters, h5=h5_out, progress=progress)
        progress.close()
        if json_out:
            write_text_atomically(json_out, json.dumps(base.to_dict(), indent=2) + "\n")
    except ResourceLimitError as exc:
        progress.close()
        _fail(f"{robot_file}: {exc}", 2)
    except (BaseParamError, ValueError) as exc:
        progress.close()
        _fail(str(exc), 2)
    except OSError as exc:
        progress.close()
        _fail(f"{exc.filename or robot_file}: {exc.strerror or exc}", 2)
    except Exception as exc:  # noqa: BLE001 — the contract promises one line, never a traceback
        progress.close()
        _fail(f"internal error: {type(exc).__name__}: {exc}", 1)
    click.echo(format_table(base))


if __name__ == "__main__":
    main()
