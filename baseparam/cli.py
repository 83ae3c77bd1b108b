"""Command line: ``baseparam find ROBOT.yaml [--parameters pseudo|khalil] [--json OUT] [--h5 OUT]``.

Library errors become one line on stderr and exit status 2 (bad input) or 1 (internal error).
"""
from __future__ import annotations

import json
import os
import sys
import time
import warnings

import click

from .atomic import write_text
from .base_set import find_base_parameters
from .errors import BaseParamError, ResourceLimitError
from .loading import load_robot
from .report import format_table


class _Progress:
    """A tqdm bar on stderr that appears only once a run has lasted a second."""

    def __init__(self, desc, enabled=None):
        self.desc, self.start, self.bar = desc, time.monotonic(), None
        self.enabled = sys.stderr.isatty() if enabled is None else enabled

    def __call__(self, done, total):
        if not self.enabled:
            return
        if self.bar is None and time.monotonic() - self.start > 1.0:
            from tqdm import tqdm
            self.bar = tqdm(total=total, desc=self.desc, file=sys.stderr, leave=False)
            self.bar.update(done)
        elif self.bar is not None:
            self.bar.update(done - self.bar.n)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _warning_line(message, category, filename, lineno, file=None, line=None):
    """Library warnings (e.g. AccuracyWarning) as one line on stderr, not Python's two-line form."""
    click.echo(f"baseparam: warning: {message}", err=True)


def _fail(message, status):
    click.echo(f"baseparam: {message}", err=True)
    sys.exit(status)


class _OneLineErrors(click.Group):
    """Usage errors as one line on stderr with exit status 2 (click prints a usage block)."""

    def main(self, *args, **kwargs):
        kwargs["standalone_mode"] = False
        with warnings.catch_warnings():               # restored on return: the hook is the CLI's own
            warnings.showwarning = _warning_line
            self._run(*args, **kwargs)

    def _run(self, *args, **kwargs):
        try:
            status = super().main(*args, **kwargs)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.Abort:
            _fail("aborted", 1)
        except click.ClickException as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":   # plain `baseparam`: show the help
                click.echo(exc.ctx.get_help())
                sys.exit(0)
            _fail(" ".join(exc.format_message().split()), 2)
        sys.exit(status or 0)


@click.group(cls=_OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
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
    if json_out and h5_out and os.path.realpath(json_out) == os.path.realpath(h5_out):  # one would clobber the other
        _fail(f"{json_out}: --json and --h5 name the same file", 2)
    progress = _Progress("projecting")
    try:
        robot = load_robot(robot_file)
        base = find_base_parameters(robot, parameters, h5=h5_out, progress=progress)
        progress.close()
        if json_out is not None:
            write_text(json_out, json.dumps(base.to_dict(), indent=2) + "\n")
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
