"""The learner's topological sort, kept apart from the engine: no visited set."""


def build_order(root):
    order = []

    def visit(node):
        for child in node._prev:
            visit(child)
        order.append(node)
    visit(root)
    return order
