"""The solver's searches compiled by Numba: the stack relaxation and the final card's count
(``relax``), the winnability search (``search``) and the par search's clearing question (``par``).

Each answers exactly what its pure-Python reference beside the package answers, stop for stop;
nothing outside the solver imports them, and the solver only where Numba is installed
(``kernel.available``).  docs/solver.md, "The compiled kernel".
"""
