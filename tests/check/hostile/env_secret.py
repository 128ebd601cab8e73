# Payload: read a secret from the environment, and see where HOME and the cwd are.
import os

with open(r"{record}", "a") as _f:
    _f.write(f"secret={os.environ.get('MICROGRAD_TEST_SECRET')}\n")
    _f.write(f"home={os.environ.get('HOME')}\n")
    _f.write(f"cwd={os.getcwd()}\n")
    _f.write(f"keys={','.join(sorted(os.environ))}\n")
