"""The base of every word of the vocabulary: a ``str`` enum that prints as its
value (``str()``, f-strings and ``format`` alike, as ``enum.StrEnum`` does from
Python 3.11), so that a member written into a message, a report or JSON reads
as the word it stands for.

>>> class Colour(Word):
...     RED = "red"
>>> str(Colour.RED), f"{Colour.RED}!", Colour.RED == "red"
('red', 'red!', True)
"""

from __future__ import annotations

from enum import Enum


class Word(str, Enum):
    """A vocabulary word (see the module docstring)."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)
