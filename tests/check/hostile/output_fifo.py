# Payload (issue 20): replace the checker's ../output.txt by a FIFO (reading it would block).
import os

with open(r"{record}", "a") as _f:
    _f.write(f"cwd={os.getcwd()}\n")
os.remove("../output.txt")
os.mkfifo("../output.txt")
print("written before the swap is lost; nothing here may hang the checker")
