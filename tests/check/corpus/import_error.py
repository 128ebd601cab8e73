"""Corpus file: imports a module that does not exist (line 4)."""
import math

from my_course_helpers import draw_dot


class Value:
    def __init__(self, data, _children=(), _op=""):
        self.data = data
        self.grad = 0.0
