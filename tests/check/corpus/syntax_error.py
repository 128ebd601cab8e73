"""Corpus file: a syntax error (a missing colon on line 8)."""

class Value:
    def __init__(self, data, _children=(), _op=""):
        self.data = data
        self.grad = 0.0

    def __add__(self, other)
        return Value(self.data + other.data, (self, other), "+")
