"""Corpus file: a huge allocation at top level (line 4: 80 GB of floats)."""
import math

cache = [0.0] * (10 ** 10)


class Value:
    def __init__(self, data):
        self.data = data
        self.grad = 0.0
