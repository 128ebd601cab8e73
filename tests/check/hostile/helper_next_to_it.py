# Imported by delete_outside.py: copied into the scratch folder with it.
HELP = 1
