"""Card Table Companion: a referee and scorekeeper for a real card table.

The package is a pure rules core (:mod:`companion.games`) inside a thin I/O
shell (board, audio, voice, web, store). See ``README.md`` for the quick start
and the public session format.
"""

__version__ = "0.1.0"
