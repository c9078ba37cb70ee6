"""Literate, notebook-driven reproductions of ICLR 2026 papers: method, experiment, claims and figures.

Modules:

- `iclr26.arena`: A- and D-optimal model-pair selection for Bradley–Terry (m-ELO) arenas, with the baselines, an arena simulator on real LMArena skills, and a scheduler API a live arena could call."""

__version__ = "0.1.0"
