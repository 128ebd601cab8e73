# Payload: delete a file next to the checked file, and import a helper next to it.
import os

import helper_next_to_it  # noqa: F401  (a .py next to the file: copied, never byte-compiled there)

os.remove("notes.txt")
