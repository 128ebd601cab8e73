# Payload: read the request (id, nonce) from the checker's own frames and answer it first,
# with a report that says reuse-add passed. The real report then arrives as a second one.
import json
import os
import sys

_plain_add = Value.__add__


def _forging_add(self, other):
    frame = sys._getframe(1)
    while frame is not None:
        request, child = frame.f_locals.get("request"), frame.f_locals.get("self")
        if isinstance(request, dict) and "nonce" in request and hasattr(child, "report_fd"):
            if request.get("id") == "reuse-add":
                run = {"stage": "done", "result_type": "Value", "data": 6.0, "seed": 1.0,
                       "grads": {"a": 2.0}}
                line = json.dumps({"runs": [run], "id": request["id"],
                                   "nonce": request["nonce"], "pid": os.getpid()})
                os.write(child.report_fd, (line + "\n").encode())
            break
        frame = frame.f_back
    return _plain_add(self, other)


Value.__add__ = _forging_add
