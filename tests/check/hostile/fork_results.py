# Payload: fork at top level without a guard: both copies would go on answering requests.
import os

os.fork()
