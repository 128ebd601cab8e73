# Payload (issue 20): copied as inspect.py next to the checked file, to hijack the
# checker child's own later `import inspect`.
raise ImportError("the learner's inspect.py was imported by the checker")
