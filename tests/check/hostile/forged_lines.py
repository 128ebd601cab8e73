# Payload: write report-looking lines (and garbage) to every file descriptor that is open.
import os

FAKE = b'{"id": "reuse-add", "nonce": "0", "pid": %d, "runs": []}\n' % os.getpid()
for fd in range(1, 64):
    try:
        os.write(fd, FAKE + b"not json at all\n" + b'{"id": 1}\n')
    except OSError:
        pass
