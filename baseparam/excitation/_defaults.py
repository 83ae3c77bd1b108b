"""The excitation search's default period and number of harmonics: the one place the library and the CLI read;
the command line's default time budget.

No imports, so that ``baseparam.cli`` can show them in ``--help`` without loading the library.

7 harmonics of a 14 s period keep the highest harmonic at 0.5 Hz, as 5 of 10 s do (so the same
velocity and acceleration limits bind), while each period visits more configurations and the series has
more shapes to choose from: with the limits of bench/bench_excite_lwr4.py, cond(W_b) goes from 32–36
(5 harmonics of 10 s) to 28–29 on the KUKA LWR4+ in 60 s, and down on the UR10e, PUMA 560 and Panda too; a search
without a time budget takes about 2.7 times as long.
"""

PERIOD = 14.0
HARMONICS = 7

# ``baseparam excite``'s time budget (s) when --time-budget is left out (the library's design_excitation has none: a
# caller chooses). Without one, a design on a slow machine runs on unbounded (kuka_lwr4.urdf 31.9 s, ur10e.urdf 121 s
# under load). The starts stay those of no budget (4 per worker, at least 8), so that a search ending before it gives
# the design it gives without one, to the bit; one it ends keeps the starts 0 … k−1 that finished and says so
# (--starts k reproduces it).
TIME_BUDGET = 60.0

# The same for ``excite --payload --payload-design wide``, whose L-BFGS takes longer (84 and 89 s of CPU for the UR10e
# and LWR4+ at 20 s × 48 harmonics with bench_excite_lwr4.py's limits) and, cut short, gives a design that depends on
# timing (said): without a budget it runs on unbounded (412 s on a loaded machine). Five minutes leave an idle machine
# three times the CPU it needs, so the design is the one of no budget, to the bit; the starts stay those of no budget
# as above.
WIDE_TIME_BUDGET = 300.0
