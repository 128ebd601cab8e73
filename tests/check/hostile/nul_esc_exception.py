# Payload: an exception whose message carries NUL, ESC (a colour code) and other controls.
raise ValueError("bad\x00 value \x1b[31mRED\x1b[0m \x07 \x0b \ud800 end")
