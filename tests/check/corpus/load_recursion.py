"""Corpus file: infinite recursion while the file is imported (line 6 calls itself)."""


def count_nodes(v):
    # forgot the base case
    return 1 + count_nodes(v)


print(count_nodes(None))


class Value:
    def __init__(self, data):
        self.data = data
        self.grad = 0.0
