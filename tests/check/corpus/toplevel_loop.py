"""Corpus file: an endless loop at top level (lines 5-6)."""

step = 0
loss = 1.0
while loss > 0:
    step += 1  # loss is never updated


class Value:
    def __init__(self, data):
        self.data = data
        self.grad = 0.0
