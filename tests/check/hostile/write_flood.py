# Payload: write 40 MiB straight to file descriptor 1, past any print() capture.
import os

_chunk = b"x" * (1 << 20)
for _ in range(40):
    os.write(1, _chunk)
