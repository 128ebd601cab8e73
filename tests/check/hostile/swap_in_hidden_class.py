# Payload (issue 20): swap in a hidden, correct class also called Value (made by exec,
# so none of its lines are in the file), hoping the checker reports a PASS for it.
_source = '''
class Value:
    def __init__(self, data, _children=()):
        self.data, self.grad, self._prev, self._backward = data, 0.0, _children, lambda: None
    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other))
        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out
    def backward(self):
        self.grad = 1.0
        self._backward()
'''
_hidden: dict = {"__name__": __name__}  # its __module__ is the file's
exec(_source, _hidden)
Value = _hidden["Value"]
